// bindings.cpp - the pybind11 module rocflash._C_hip / rocflash._C_cuda (built with the host C++
// compiler; the kernels and the runtime calls live in the objects hipcc/nvcc built). torch is not linked:
// Python passes device pointers, strides and the stream handle as integers.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "fmha_api.h"

#ifndef RF_MODULE_NAME
#error "define RF_MODULE_NAME (_C_hip or _C_cuda)"
#endif
#ifndef RF_COMPILED_ARCHS
#error "define RF_COMPILED_ARCHS"
#endif

namespace py = pybind11;

namespace {

const char* dtype_name(rf::DType d) {
  switch (d) {
    case rf::DType::kFp16: return "fp16";
    case rf::DType::kBf16: return "bf16";
    case rf::DType::kFp32: return "fp32";
  }
  return "?";
}

// A pointer field exposed to Python as an integer address (torch's data_ptr()).
template <typename Params, typename T>
void def_ptr(py::class_<Params>& cls, const char* name, T Params::*member) {
  cls.def_property(
      name, [member](const Params& p) { return reinterpret_cast<std::uintptr_t>(p.*member); },
      [member](Params& p, std::uintptr_t v) { p.*member = reinterpret_cast<T>(v); });
}

// The fields the forward and backward params share (same names in both structs).
template <typename Params>
void def_common_fields(py::class_<Params>& cls) {
  cls.def(py::init([]() { return Params{}; }));
  def_ptr(cls, "q", &Params::q);
  def_ptr(cls, "k", &Params::k);
  def_ptr(cls, "v", &Params::v);
  def_ptr(cls, "o", &Params::o);
  def_ptr(cls, "lse", &Params::lse);
  def_ptr(cls, "softmax_stats", &Params::softmax_stats);
  def_ptr(cls, "o_fp32", &Params::o_fp32);
  def_ptr(cls, "alibi_slopes", &Params::alibi_slopes);
#define RF_FIELD(name) cls.def_readwrite(#name, &Params::name)
  RF_FIELD(q_batch_stride); RF_FIELD(q_row_stride); RF_FIELD(q_head_stride);
  RF_FIELD(k_batch_stride); RF_FIELD(k_row_stride); RF_FIELD(k_head_stride);
  RF_FIELD(v_batch_stride); RF_FIELD(v_row_stride); RF_FIELD(v_head_stride);
  RF_FIELD(o_batch_stride); RF_FIELD(o_row_stride); RF_FIELD(o_head_stride);
  RF_FIELD(batch); RF_FIELD(seqlen_q); RF_FIELD(seqlen_k); RF_FIELD(nheads); RF_FIELD(nheads_k); RF_FIELD(headdim);
  RF_FIELD(dtype); RF_FIELD(softmax_scale); RF_FIELD(softcap); RF_FIELD(alibi_batch_stride);
  RF_FIELD(window_left); RF_FIELD(window_right); RF_FIELD(aligned);
#undef RF_FIELD  // SeqLayout (varlen / KV cache), flattened: seq_cu_seqlens_q, ..., seq_lse_head_stride
#define RF_SEQ_PTR(name)                                                                                   \
  cls.def_property(                                                                                        \
      "seq_" #name, [](const Params& p) { return reinterpret_cast<std::uintptr_t>(p.seq.name); },         \
      [](Params& p, std::uintptr_t v) { p.seq.name = reinterpret_cast<const int32_t*>(v); })
#define RF_SEQ_FIELD(name) \
  cls.def_property("seq_" #name, [](const Params& p) { return p.seq.name; }, [](Params& p, decltype(p.seq.name) v) { p.seq.name = v; })
  RF_SEQ_PTR(cu_seqlens_q); RF_SEQ_PTR(cu_seqlens_k); RF_SEQ_PTR(seqused_k); RF_SEQ_PTR(cache_batch_idx);
  RF_SEQ_PTR(block_table);
  RF_SEQ_FIELD(block_table_batch_stride); RF_SEQ_FIELD(page_block_size); RF_SEQ_FIELD(total_q);
  RF_SEQ_FIELD(lse_batch_stride); RF_SEQ_FIELD(lse_head_stride);
#undef RF_SEQ_PTR
#undef RF_SEQ_FIELD
}

// The pointers of one fwd_step / kvcache_step call (integer addresses, 0 = none) into the copy of a kept plan.
rf::FmhaFwdParams with_call_pointers(const rf::FmhaFwdParams& plan, std::uintptr_t q, std::uintptr_t k,
                                     std::uintptr_t v, std::uintptr_t o, std::uintptr_t lse, std::uintptr_t o_accum,
                                     std::uintptr_t lse_accum, std::uintptr_t split_counters) {
  rf::FmhaFwdParams p = plan;  // a copy: the kept structs are never written, so threads may share them
  p.q = reinterpret_cast<const void*>(q);
  p.k = reinterpret_cast<const void*>(k);
  p.v = reinterpret_cast<const void*>(v);
  p.o = reinterpret_cast<void*>(o);
  p.lse = reinterpret_cast<float*>(lse);
  p.o_accum = reinterpret_cast<float*>(o_accum);
  p.lse_accum = reinterpret_cast<float*>(lse_accum);
  p.split_counters = reinterpret_cast<int32_t*>(split_counters);
  return p;
}

}  // namespace

PYBIND11_MODULE(RF_MODULE_NAME, m) {
  m.doc() = "rocflash compiled kernels (one source in hip_src/, built for this platform)";

  py::enum_<rf::DType>(m, "DType", py::module_local())
      .value("fp16", rf::DType::kFp16)
      .value("bf16", rf::DType::kBf16)
      .value("fp32", rf::DType::kFp32);

  py::class_<rf::FmhaFwdParams> params(m, "FmhaFwdParams", py::module_local(),
                                      "Forward parameters; see hip_src/fmha_fwd_params.h");
  def_common_fields(params);
  params.def_readwrite("num_splits", &rf::FmhaFwdParams::num_splits);
  def_ptr(params, "o_accum", &rf::FmhaFwdParams::o_accum);
  def_ptr(params, "lse_accum", &rf::FmhaFwdParams::lse_accum);
  params.def_readwrite("kv_prefetch_l2", &rf::FmhaFwdParams::kv_prefetch_l2);
  params.def_readwrite("pdl", &rf::FmhaFwdParams::pdl);
  params.def_readwrite("kv_k_first", &rf::FmhaFwdParams::kv_k_first);
  def_ptr(params, "split_counters", &rf::FmhaFwdParams::split_counters);
  def_ptr(params, "k_padded", &rf::FmhaFwdParams::k_padded);  // scalar-broadcast forward's workspaces
  def_ptr(params, "v_pairs", &rf::FmhaFwdParams::v_pairs);

  py::class_<rf::KvStepParams> step(m, "KvStepParams", py::module_local(),
                                    "A KV-cache decode step's index checks and append; see hip_src/fmha_fwd_params.h");
  step.def(py::init([]() { return rf::KvStepParams{}; }));
  def_ptr(step, "cache_seqlens", &rf::KvStepParams::cache_seqlens);
  def_ptr(step, "seqused_k", &rf::KvStepParams::seqused_k);
  def_ptr(step, "error_flag", &rf::KvStepParams::error_flag);
  def_ptr(step, "k_new", &rf::KvStepParams::k_new);
  def_ptr(step, "v_new", &rf::KvStepParams::v_new);
#define RF_FIELD(name) step.def_readwrite(#name, &rf::KvStepParams::name)
  RF_FIELD(seqlen_cache); RF_FIELD(seqlen_new); RF_FIELD(capacity); RF_FIELD(num_rows); RF_FIELD(assert_on_error);
  RF_FIELD(fold);
  RF_FIELD(kn_batch_stride); RF_FIELD(kn_row_stride); RF_FIELD(kn_head_stride);
  RF_FIELD(vn_batch_stride); RF_FIELD(vn_row_stride); RF_FIELD(vn_head_stride);
#undef RF_FIELD

  py::class_<rf::FmhaBwdParams> bwd_params(m, "FmhaBwdParams", py::module_local(),
                                            "Backward parameters; see hip_src/fmha_bwd_params.h");
  def_common_fields(bwd_params);
  def_ptr(bwd_params, "dout", &rf::FmhaBwdParams::dout);
  def_ptr(bwd_params, "delta", &rf::FmhaBwdParams::delta);
  def_ptr(bwd_params, "bwd_stats", &rf::FmhaBwdParams::bwd_stats);
  def_ptr(bwd_params, "dq", &rf::FmhaBwdParams::dq);
  def_ptr(bwd_params, "dk", &rf::FmhaBwdParams::dk);
  def_ptr(bwd_params, "dv", &rf::FmhaBwdParams::dv);
  def_ptr(bwd_params, "dq_accum", &rf::FmhaBwdParams::dq_accum);
#define RF_FIELD(name) bwd_params.def_readwrite(#name, &rf::FmhaBwdParams::name)
  RF_FIELD(do_batch_stride); RF_FIELD(do_row_stride); RF_FIELD(do_head_stride);
  RF_FIELD(dq_batch_stride); RF_FIELD(dq_row_stride); RF_FIELD(dq_head_stride);
  RF_FIELD(dk_batch_stride); RF_FIELD(dk_row_stride); RF_FIELD(dk_head_stride);
  RF_FIELD(dv_batch_stride); RF_FIELD(dv_row_stride); RF_FIELD(dv_head_stride);
#undef RF_FIELD

  py::enum_<rf::TileMath>(m, "TileMath", py::module_local())
      .value("vector", rf::TileMath::kVector)
      .value("mma", rf::TileMath::kMma)
      .value("sbcast", rf::TileMath::kSbcast);

  m.def("fwd", [](const rf::FmhaFwdParams& p, std::uintptr_t stream, rf::TileMath math) {
        std::string error;
        int rc;
        {
          py::gil_scoped_release release;
          rc = rf::fmha_fwd(p, reinterpret_cast<void*>(stream), &error, math);
        }
        if (rc != 0) throw std::runtime_error(error);
      },
      py::arg("params"), py::arg("stream"), py::arg("math") = rf::TileMath::kVector,
      "Launch the forward kernel of tile math `math` on `stream` (no synchronization).");
  m.def("fwd_splitkv", [](const rf::FmhaFwdParams& p, std::uintptr_t stream, rf::TileMath math) {
        std::string error;
        int rc;
        {
          py::gil_scoped_release release;
          rc = rf::fmha_fwd_splitkv(p, reinterpret_cast<void*>(stream), &error, math);
        }
        if (rc != 0) throw std::runtime_error(error);
      },
      py::arg("params"), py::arg("stream"), py::arg("math") = rf::TileMath::kVector,
      "Launch the split-KV decode kernel of tile math `math` (and the combine kernel when num_splits > 1).");
  // One call per decode step: the pointers that change per call are arguments, so Python sets no struct field
  // (the structs hold what a call signature fixes; rocflash/kvcache_fast.py keeps them per signature).
  m.def("kvcache_step",
        [](const rf::FmhaFwdParams& plan, const rf::KvStepParams& step_plan, std::uintptr_t stream, rf::TileMath math,
           bool split,
           std::uintptr_t q, std::uintptr_t k_cache, std::uintptr_t v_cache, std::uintptr_t o, std::uintptr_t lse,
           std::uintptr_t cache_seqlens, int seqlen_cache, std::uintptr_t cache_batch_idx, std::uintptr_t block_table,
           std::uintptr_t k_new, std::uintptr_t v_new, std::uintptr_t seqused_k, std::uintptr_t o_accum, std::uintptr_t lse_accum,
           std::uintptr_t split_counters) {
          rf::FmhaFwdParams p =
              with_call_pointers(plan, q, k_cache, v_cache, o, lse, o_accum, lse_accum, split_counters);
          rf::KvStepParams s = step_plan;  // (copies: the kept structs are never written)
          p.seq.cache_batch_idx = reinterpret_cast<const int32_t*>(cache_batch_idx);
          p.seq.block_table = reinterpret_cast<const int32_t*>(block_table);
          s.cache_seqlens = reinterpret_cast<const int32_t*>(cache_seqlens);
          s.seqlen_cache = seqlen_cache;
          s.k_new = reinterpret_cast<const void*>(k_new);
          s.v_new = reinterpret_cast<const void*>(v_new);
          s.seqused_k = reinterpret_cast<int32_t*>(seqused_k);
          std::string error;
          int rc;
          {
            py::gil_scoped_release release;
            rc = rf::fmha_kvcache_step(p, s, reinterpret_cast<void*>(stream), &error, math, split);
          }
          if (rc != 0) throw std::runtime_error(error);
        },
        py::arg("params"), py::arg("step"), py::arg("stream"), py::arg("math"), py::arg("split"), py::arg("q"),
        py::arg("k_cache"), py::arg("v_cache"), py::arg("o"), py::arg("lse"), py::arg("cache_seqlens"),
        py::arg("seqlen_cache"), py::arg("cache_batch_idx"), py::arg("block_table"), py::arg("k_new"), py::arg("v_new"),
        py::arg("seqused_k"), py::arg("o_accum"), py::arg("lse_accum"), py::arg("split_counters"),
        "One KV-cache decode step on `stream`: the step kernel (index checks on the device, append of k_new / v_new, "
        "seqused_k), then the split-KV kernel and its combine (split) or the forward kernel. Pointers are integer "
        "addresses (0 = none).");
  // A repeated eager flash_attn_func inference call (rocflash/backends/compiled.py forward_planned): the params a
  // signature fixes are kept in `plan` (never written here: threads may share it); this call's pointers are
  // arguments, so Python sets no struct field per call.
  m.def("fwd_step",
        [](const rf::FmhaFwdParams& plan, std::uintptr_t stream, rf::TileMath math, bool split, std::uintptr_t q,
           std::uintptr_t k, std::uintptr_t v, std::uintptr_t o, std::uintptr_t lse, std::uintptr_t o_accum,
           std::uintptr_t lse_accum, std::uintptr_t split_counters) {
          const rf::FmhaFwdParams p = with_call_pointers(plan, q, k, v, o, lse, o_accum, lse_accum, split_counters);
          std::string error;
          int rc;
          {
            py::gil_scoped_release release;
            rc = split ? rf::fmha_fwd_splitkv(p, reinterpret_cast<void*>(stream), &error, math)
                       : rf::fmha_fwd(p, reinterpret_cast<void*>(stream), &error, math);
          }
          if (rc != 0) throw std::runtime_error(error);
        },
        py::arg("params"), py::arg("stream"), py::arg("math"), py::arg("split"), py::arg("q"), py::arg("k"),
        py::arg("v"), py::arg("o"), py::arg("lse"), py::arg("o_accum"), py::arg("lse_accum"),
        py::arg("split_counters"),
        "The forward (split: the split-KV kernel and its combine) on `stream` with a copy of `params` holding this "
        "call's pointers (integer addresses, 0 = none).");
  // flash_attn_varlen_func's index checks (rocflash/varlen.py device_checks): every field is an argument, so the
  // call sets no struct field from Python.
  m.def("varlen_check",
        [](std::uintptr_t stream, std::uintptr_t cu_seqlens_q, std::uintptr_t cu_seqlens_k, int batch, int total_q,
           int total_k, int max_seqlen_q, int max_seqlen_k, std::uintptr_t block_table, int64_t block_table_batch_stride,
           int max_blocks_per_seq, int page_block_size, int num_blocks, std::uintptr_t error_flag, bool assert_on_error) {
          rf::VarlenCheckParams c{};
          c.cu_seqlens_q = reinterpret_cast<const int32_t*>(cu_seqlens_q);
          c.cu_seqlens_k = reinterpret_cast<const int32_t*>(cu_seqlens_k);
          c.batch = batch;
          c.total_q = total_q;
          c.total_k = total_k;
          c.max_seqlen_q = max_seqlen_q;
          c.max_seqlen_k = max_seqlen_k;
          c.block_table = reinterpret_cast<const int32_t*>(block_table);
          c.block_table_batch_stride = block_table_batch_stride;
          c.max_blocks_per_seq = max_blocks_per_seq;
          c.page_block_size = page_block_size;
          c.num_blocks = num_blocks;
          c.error_flag = reinterpret_cast<int32_t*>(error_flag);
          c.assert_on_error = assert_on_error ? 1 : 0;
          std::string error;
          int rc;
          {
            py::gil_scoped_release release;
            rc = rf::fmha_varlen_check(c, reinterpret_cast<void*>(stream), &error);
          }
          if (rc != 0) throw std::runtime_error(error);
        },
        py::arg("stream"), py::arg("cu_seqlens_q"), py::arg("cu_seqlens_k"), py::arg("batch"), py::arg("total_q"),
        py::arg("total_k"), py::arg("max_seqlen_q"), py::arg("max_seqlen_k"), py::arg("block_table"),
        py::arg("block_table_batch_stride"), py::arg("max_blocks_per_seq"), py::arg("page_block_size"),
        py::arg("num_blocks"), py::arg("error_flag"), py::arg("assert_on_error"),
        "flash_attn_varlen_func's index checks in one kernel on `stream` (hip_src/fmha_varlen_check.h): a violation "
        "sets *error_flag (0 = none) and, with assert_on_error, stops the stream in a device-side assert. total_k -1: "
        "cu_seqlens_k may end anywhere (paged K/V); block_table 0: none.");
  m.def("bwd", [](const rf::FmhaBwdParams& p, std::uintptr_t stream, rf::TileMath math) {
        std::string error;
        int rc;
        {
          py::gil_scoped_release release;
          rc = rf::fmha_bwd(p, reinterpret_cast<void*>(stream), &error, math);
        }
        if (rc != 0) throw std::runtime_error(error);
      },
      py::arg("params"), py::arg("stream"), py::arg("math") = rf::TileMath::kVector,
      "Launch the backward kernels (preprocess, dK/dV and dQ of tile math `math`) on `stream` (no synchronization).");

  m.def("instances", []() {
    py::list out;
    for (int i = 0; i < rf::num_kernels(); ++i) {
      const rf::KernelInfo c = rf::kernel_info(i);
      py::dict d;
      d["kind"] = c.kind; d["name"] = c.name; d["dtype"] = dtype_name(c.dtype); d["headdim"] = c.headdim;
      d["block_m"] = c.block_m; d["block_n"] = c.block_n; d["threads"] = c.threads; d["threads_n"] = c.threads_n;
      d["lds_pad_bytes"] = c.lds_pad_bytes; d["lds_bytes"] = c.lds_bytes; d["aligned"] = c.aligned;
      d["impl"] = c.math == rf::TileMath::kMma ? "mma" : c.math == rf::TileMath::kSbcast ? "sbcast" : "vector";
      out.append(d);
    }
    return out;
  }, "Every compiled kernel instance (forward and backward) with its tile config and dynamic LDS bytes.");

  m.def("select_instance", [](const std::string& kind, rf::DType dtype, int headdim, bool aligned, rf::TileMath math) {
    return rf::select_kernel(kind, dtype, headdim, aligned, math);
  }, py::arg("kind"), py::arg("dtype"), py::arg("headdim"), py::arg("aligned"), py::arg("math") = rf::TileMath::kVector,
     "Index into instances() of the `kind` kernel the dispatch runs, or -1.");

  m.def("platform", []() { return std::string(rf::platform_name()); });
  m.def("compiled_archs", []() {
    std::string s = RF_COMPILED_ARCHS;
    py::list out;
    size_t start = 0;
    while (start <= s.size()) {
      const size_t end = s.find(';', start);
      const std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!item.empty()) out.append(item);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return out;
  });
  m.def("device_count", []() {
    std::string error;
    const int n = rf::device_count(&error);
    return py::make_tuple(n, error);  // (-1, message) when the runtime reports no usable device
  });
  m.def("device_info", [](int device) {
    rf::DeviceInfo info;
    std::string error;
    if (rf::device_info(device, &info, &error) != 0) throw std::runtime_error(error);
    py::dict d;
    d["name"] = info.name; d["arch"] = info.arch; d["wave_size"] = info.wave_size;
    d["multiprocessors"] = info.multiprocessors; d["lds_per_block"] = info.lds_per_block;
    d["lds_per_multiprocessor"] = info.lds_per_multiprocessor; d["total_memory"] = info.total_memory;
    return d;
  });
  m.def("runtime_version", &rf::runtime_version);
}
