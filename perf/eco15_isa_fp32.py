"""rocflash.isa restricted to the fp32 instances (codegen.instances filtered; eco15): python perf/eco15_isa_fp32.py -- <rocflash.isa args>"""
import sys
from rocflash import codegen
import rocflash.isa.run as run
_orig = codegen.instances
def only_fp32(*a, **kw):
    return [(cfg, al) for cfg, al in _orig(*a, **kw) if cfg.dtype == "fp32"]
codegen.instances = only_fp32
run.codegen.instances = only_fp32
from rocflash.isa.cli import main
sys.exit(main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]))
