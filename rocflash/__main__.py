"""``python -m rocflash info``: what this install can run, and why a backend is selected."""

import argparse
import json

from .info import info


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m rocflash")
    sub = ap.add_subparsers(dest="command", required=True)
    p_info = sub.add_parser("info", help="device, arch, wave size, LDS, compiled arches, backends, selection")
    p_info.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    if args.command == "info":
        if args.json:
            print(json.dumps(info(print_report=False), indent=2))
        else:
            info()


if __name__ == "__main__":
    main()
