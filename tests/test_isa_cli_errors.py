"""`python -m rocflash.isa --from-dir` must not pass silently on a path that holds nothing to audit."""

from __future__ import annotations

from rocflash.isa.cli import main


def test_from_dir_missing_directory_fails(tmp_path, capsys):
    assert main(["--from-dir", str(tmp_path / "nope"), "--check"]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_from_dir_without_kernels_fails(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("no assembly here\n")
    assert main(["--from-dir", str(tmp_path), "--check"]) == 2
    assert "no kernel to audit" in capsys.readouterr().err
