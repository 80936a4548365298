// Python module rocflash._C_ck: launches the Composable Kernel instances of ck_configs/ck_fmha.toml by name.
// Python (rocflash/backends/ck.py) builds the fields of CK's fmha_fwd_args (rocflash/ck/args.py: same names,
// pointers as integers, strides in elements) and the stream; this file only copies them into the struct.
// The backward's fmha_bwd_args are filled in ck_bwd_bindings.cpp (CK's two headers cannot share a file).
// Built by setup.py (rocflash/ck/build.py) with the user's ROCm hipcc; needs no torch.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "fmha_fwd.hpp"

float rocflash_ck_fmha_fwd(const std::string& name, const std::string& family, fmha_fwd_args a,
                           const ck_tile::stream_config& s);

float rocflash_ck_bwd_from_dict(const std::string& name, const std::string& family, const pybind11::dict& d,
                                std::uintptr_t stream);

namespace py = pybind11;

namespace {

const void* pointer(const py::dict& d, const char* key)
{
    const auto v = d[key].cast<std::uintptr_t>();
    return v ? reinterpret_cast<const void*>(v) : nullptr;
}

template <typename T>
T field(const py::dict& d, const char* key)
{
    if(!d.contains(key))
        throw std::invalid_argument(std::string("fmha_fwd_args field missing: ") + key);
    return d[key].cast<T>();
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for(std::string item; std::getline(ss, item, ';');)
        if(!item.empty())
            out.push_back(item);
    return out;
}

float fwd(const std::string& name, const std::string& family, const py::dict& d, std::uintptr_t stream)
{
    fmha_fwd_args a{};  // value-initialised: null randval pointer, zero bias head / batch strides, no dropout
    a.q_ptr = pointer(d, "q_ptr");
    a.k_ptr = pointer(d, "k_ptr");
    a.v_ptr = pointer(d, "v_ptr");
    a.lse_ptr = const_cast<void*>(pointer(d, "lse_ptr"));
    a.o_ptr = const_cast<void*>(pointer(d, "o_ptr"));
    a.seqstart_q_ptr = pointer(d, "seqstart_q_ptr");
    a.seqstart_k_ptr = pointer(d, "seqstart_k_ptr");
    a.bias_ptr = pointer(d, "bias_ptr");  // ALiBi instances: float32 slopes; null otherwise
#define RF_INT(f) a.f = field<ck_tile::index_t>(d, #f)
    RF_INT(seqlen_q); RF_INT(seqlen_k); RF_INT(batch); RF_INT(max_seqlen_q); RF_INT(hdim_q); RF_INT(hdim_v);
    RF_INT(nhead_q); RF_INT(nhead_k);
    RF_INT(stride_q); RF_INT(stride_k); RF_INT(stride_v); RF_INT(stride_o);
    RF_INT(nhead_stride_q); RF_INT(nhead_stride_k); RF_INT(nhead_stride_v); RF_INT(nhead_stride_lse); RF_INT(nhead_stride_o);
    RF_INT(batch_stride_q); RF_INT(batch_stride_k); RF_INT(batch_stride_v); RF_INT(batch_stride_lse); RF_INT(batch_stride_o);
    RF_INT(window_size_left); RF_INT(window_size_right); RF_INT(mask_type); RF_INT(stride_bias);
#undef RF_INT
    a.scale_s = field<float>(d, "scale_s");
    a.scale_p = field<float>(d, "scale_p");
    a.scale_o = field<float>(d, "scale_o");
    a.logits_soft_cap = field<float>(d, "logits_soft_cap");
    a.p_drop = field<float>(d, "p_drop");
    a.s_randval = false;
    a.drop_seed_offset = std::make_pair(std::uint64_t{0}, std::uint64_t{0});
    const ck_tile::stream_config s{reinterpret_cast<hipStream_t>(stream)};
    return rocflash_ck_fmha_fwd(name, family, a, s);
}

}  // namespace

PYBIND11_MODULE(_C_ck, m)
{
    m.doc() = "Composable Kernel FMHA instances of rocflash (ck_configs/ck_fmha.toml)";
    m.def("fwd", &fwd, py::arg("instance"), py::arg("family"), py::arg("args"), py::arg("stream"),
          "Launch a forward instance by name; returns CK's time (ms, 0 when not timed) or -1 if not built");
    m.def("bwd", &rocflash_ck_bwd_from_dict, py::arg("instance"), py::arg("family"), py::arg("args"),
          py::arg("stream"),
          "Launch a backward instance (dot_do_o, dq_dk_dv, convert_dq) by name; CK's time (ms) or -1 if not built");
    m.def("compiled_archs", [] { return split(RF_CK_ARCHS); });
    m.def("instances", [] { return split(RF_CK_INSTANCES); });
}
