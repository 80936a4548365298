# Single-GPU check of the softmax_scale=100 fp16 d128 case that failed in the cp run (tests/cp_check.py Case(96, non-causal,
# h 2, seed 1)): flash_attn_func and compiled.backward with stats / LSE and fp32 / rounded O, both tile maths.
# Run from a directory outside the source tree (else the uncompiled source package is imported).
import os, sys, torch
sys.path.insert(0, "tests")
from rocflash import flash_attn_func
from rocflash.backends import compiled, FwdArgs
from rocflash.backends.reference import attention_reference
def ref(q,k,v,do,args,dt):
    a,b,c=(t.detach().to(dt).requires_grad_() for t in (q,k,v)); o,_=attention_reference(a,b,c,args,dt); o.backward(do.to(dt)); return a.grad,b.grad,c.grad
g=torch.Generator().manual_seed(1)
q,k,v=(torch.randn(1,96,2,128,generator=g).to("cuda",torch.float16) for _ in range(3)); do=torch.randn(1,96,2,128,generator=g).to("cuda",torch.float16)
args=FwdArgs(100.0,-1,-1,0.0,None)
r64=ref(q,k,v,do,args,torch.float64); rlo=ref(q,k,v,do,args,torch.float16)
def ratio(gr): return " ".join("%.3f"%((x.double()-a).abs().max().item()/(3*(b.double()-a).abs().max().item()+1e-3)) for x,a,b in zip(gr,r64,rlo))
for kern in ("auto","vector"):
    os.environ["ROCFLASH_KERNEL"]=kern
    for det in (False,True):
        qq,kk,vv=(t.clone().requires_grad_() for t in (q,k,v))
        flash_attn_func(qq,kk,vv,softmax_scale=100.0,deterministic=det).backward(do)
        print(kern,"flash_attn_func det",det,ratio((qq.grad,kk.grad,vv.grad)),compiled.last_kernels(),flush=True)
    out,lse,st,o32=compiled.forward("cuda",q,k,v,args,with_stats=True,with_out_fp32=True)
    for name,s_,o_ in (("stats+fp32O",st,o32),("lse+fp32O",lse,o32),("lse+roundedO",lse,None),("stats+roundedO",st,None)):
        for det in (False,True):
            print(kern,name,"det",det,ratio(compiled.backward("cuda",q,k,v,out,s_,do,args,out_fp32=o_,deterministic=det)),flush=True)
