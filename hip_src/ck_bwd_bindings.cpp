// Backward half of the Python module rocflash._C_ck: copies the fields of CK's fmha_bwd_args that Python built
// (rocflash/ck/args.py FmhaBwdArgs: same names, pointers as integers, strides in elements) into the struct and
// launches a backward instance by name. A translation unit of its own: CK's fmha_bwd.hpp and fmha_fwd.hpp both
// define FmhaMasks. Built by setup.py (rocflash/ck/build.py) with the user's ROCm hipcc; needs no torch.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "fmha_bwd.hpp"

float rocflash_ck_fmha_bwd(const std::string& name, const std::string& family, fmha_bwd_args a,
                           const ck_tile::stream_config& s);

namespace py = pybind11;

namespace {

void* pointer(const py::dict& d, const char* key)
{
    if(!d.contains(key))
        throw std::invalid_argument(std::string("fmha_bwd_args field missing: ") + key);
    const auto v = d[key].cast<std::uintptr_t>();
    return v ? reinterpret_cast<void*>(v) : nullptr;
}

template <typename T>
T field(const py::dict& d, const char* key)
{
    if(!d.contains(key))
        throw std::invalid_argument(std::string("fmha_bwd_args field missing: ") + key);
    return d[key].cast<T>();
}

}  // namespace

float rocflash_ck_bwd_from_dict(const std::string& name, const std::string& family, const py::dict& d,
                                std::uintptr_t stream)
{
    fmha_bwd_args a{};  // value-initialised: null dbias / randval pointers, zero strides for them
#define RF_PTR(f) a.f = pointer(d, #f)
    RF_PTR(q_ptr); RF_PTR(k_ptr); RF_PTR(v_ptr); RF_PTR(o_ptr); RF_PTR(lse_ptr); RF_PTR(do_ptr);
    RF_PTR(d_ptr); RF_PTR(dq_ptr); RF_PTR(dk_ptr); RF_PTR(dv_ptr); RF_PTR(dq_acc_ptr);
    RF_PTR(seqstart_q_ptr); RF_PTR(seqstart_k_ptr); RF_PTR(bias_ptr);  // bias_ptr: ALiBi slopes or null
#undef RF_PTR
#define RF_INT(f) a.f = field<ck_tile::index_t>(d, #f)
    RF_INT(seqlen_q); RF_INT(seqlen_k); RF_INT(batch); RF_INT(max_seqlen_q); RF_INT(max_seqlen_k);
    RF_INT(hdim_q); RF_INT(hdim_v); RF_INT(nhead_q); RF_INT(nhead_k);
    RF_INT(stride_q); RF_INT(stride_k); RF_INT(stride_v); RF_INT(stride_o); RF_INT(stride_do);
    RF_INT(stride_dq_acc); RF_INT(stride_dq); RF_INT(stride_dk); RF_INT(stride_dv);
    RF_INT(nhead_stride_q); RF_INT(nhead_stride_k); RF_INT(nhead_stride_v); RF_INT(nhead_stride_o);
    RF_INT(nhead_stride_do); RF_INT(nhead_stride_lsed); RF_INT(nhead_stride_dq_acc); RF_INT(nhead_stride_dq);
    RF_INT(nhead_stride_dk); RF_INT(nhead_stride_dv);
    RF_INT(batch_stride_q); RF_INT(batch_stride_k); RF_INT(batch_stride_v); RF_INT(batch_stride_o);
    RF_INT(batch_stride_do); RF_INT(batch_stride_lsed); RF_INT(batch_stride_dq_acc); RF_INT(batch_stride_dq);
    RF_INT(batch_stride_dk); RF_INT(batch_stride_dv); RF_INT(split_stride_dq_acc);
    RF_INT(window_size_left); RF_INT(window_size_right); RF_INT(mask_type); RF_INT(stride_bias);
#undef RF_INT
    a.scale = field<float>(d, "scale");
    a.p_drop = field<float>(d, "p_drop");
    a.p_undrop = field<float>(d, "p_undrop");  // D = p_undrop * rowsum(dO * O): 1 without dropout
    a.drop_seed_offset = std::make_pair(std::uint64_t{0}, std::uint64_t{0});
    const ck_tile::stream_config s{reinterpret_cast<hipStream_t>(stream)};
    return rocflash_ck_fmha_bwd(name, family, a, s);
}
