//===- ops.cpp - the gpupoor::split_k_matmul operator ---------------------===//
//
// Part of the gpupoor project, under the MIT License.
//
//===----------------------------------------------------------------------===//
//
// gpupoor::split_k_matmul(x, weight, bias, max_k_splits, outer, activation,
// slices, backend): act(x @ weight + bias) with f16 inner sums over S chunks
// of K, x (..., K), weight (K, N). Registered with TORCH_LIBRARY: a CUDA
// kernel (the mlir backend's launcher, or the triton backend's operator
// gpupoor::split_k_triton, which the Python package defines), a Meta kernel
// (shapes, for FakeTensor, torch.compile and export), a CPU kernel that
// refuses host tensors by name, and autograd. The argument checks are one
// function (checkArguments) that each kernel and the package's eager entry
// (split_k_sequential, bound below) call.
//
//===----------------------------------------------------------------------===//

#include "launcher.h"
#include "library.h"
#include "loader.h"
#include "operands.h"

#include "gpupoor/Policy/Policy.h"

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/autograd.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <pybind11/pybind11.h>
#include <torch/csrc/utils/pybind.h>

#include <atomic>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using namespace pybind11::literals;

namespace gpupoor::package {
namespace {

struct Options {
  bool f16Outer;
  std::string activation; // none, relu, gelu
  std::string backend;    // auto, mlir, triton
};

std::string deviceText(const at::Tensor &t) { return t.device().str(); }

// Messages format numbers with std::to_string, not through c10::str's
// stream: with the PyTorch 2.11 wheel (built by gcc-toolset-13) and this
// extension built by the system's g++ 13.3, a message formatting an int64_t
// or a SymInt through c10::str crashed (SIGSEGV, H100 machine, 2026-11-27).

/// A size as a message shows it: its value, or its expression when traced.
std::string sizeText(const c10::SymInt &s) {
  if (std::optional<int64_t> v = s.maybe_as_int())
    return std::to_string(*v);
  return s.toSymNode()->str();
}

/// A shape as Python prints a tuple.
std::string shapeText(c10::SymIntArrayRef sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i)
    out += (i ? ", " : "") + sizeText(sizes[i]);
  return out + (sizes.size() == 1 ? ",)" : ")");
}

/// The operands are CUDA tensors on one device.
void checkDevices(const at::Tensor &x, const at::Tensor &weight,
                  const std::optional<at::Tensor> &bias) {
  TORCH_CHECK_VALUE(x.is_cuda(), "x must be on a CUDA device, got ",
                    deviceText(x));
  TORCH_CHECK_VALUE(weight.is_cuda(), "weight must be on a CUDA device, got ",
                    deviceText(weight));
  if (bias)
    TORCH_CHECK_VALUE(bias->is_cuda(), "bias must be on a CUDA device, got ",
                      deviceText(*bias));
  TORCH_CHECK_VALUE(weight.device() == x.device(), "weight is on ",
                    deviceText(weight), ", x on ", deviceText(x),
                    ": they must share a device");
  if (bias)
    TORCH_CHECK_VALUE(bias->device() == x.device(), "bias is on ",
                      deviceText(*bias), ", x on ", deviceText(x),
                      ": they must share a device");
}

/// The options are ones the operator has.
void checkOptions(int64_t maxSplits, c10::string_view outer,
                  c10::string_view activation, int64_t slices,
                  c10::string_view backend) {
  TORCH_CHECK_VALUE(1 <= maxSplits && maxSplits <= policy::kMaxSplits,
                    "max_k_splits must be an int in [1, ", policy::kMaxSplits,
                    "], got ", std::to_string(maxSplits));
  TORCH_CHECK_VALUE(outer == "f32" || outer == "f16",
                    "outer must be one of ('f32', 'f16'), got '", outer, "'");
  TORCH_CHECK_VALUE(activation == "none" || activation == "relu" ||
                        activation == "gelu",
                    "activation must be one of (None, 'relu', 'gelu'), got '",
                    activation, "'");
  TORCH_CHECK_VALUE(0 <= slices && slices <= policy::kMaxSlices,
                    "slices must be an int in [0, ", policy::kMaxSlices,
                    "] (0: automatic), got ", std::to_string(slices));
  TORCH_CHECK_VALUE(
      backend == "auto" || backend == "mlir" || backend == "triton",
      "backend must be one of ('mlir', 'triton') or None, got '", backend, "'");
}

/// Raises ValueError or TypeError naming the argument that is wrong. Sizes
/// are read symbolically (a traced call's may be); `devices`: whether the
/// tensors' devices are real (not a Meta kernel's).
Options checkArguments(const at::Tensor &x, const at::Tensor &weight,
                       const std::optional<at::Tensor> &bias, int64_t maxSplits,
                       c10::string_view outer, c10::string_view activation,
                       int64_t slices, c10::string_view backend, bool devices) {
  at::ScalarType dtype = x.scalar_type();
  TORCH_CHECK_TYPE(dtype == at::kHalf || dtype == at::kFloat,
                   "x must be float16 or float32, got ", dtype,
                   dtype == at::kBFloat16
                       ? " (bf16 values beyond f16's range of +-65504 would "
                         "turn into inf: convert to float16 explicitly where "
                         "that is safe)"
                       : "");
  TORCH_CHECK_TYPE(weight.scalar_type() == dtype, "weight must have x's dtype ",
                   dtype, ", got ", weight.scalar_type());
  TORCH_CHECK_VALUE(
      x.dim() >= 1,
      "x must have at least one dimension (..., K), got a scalar");
  TORCH_CHECK_VALUE(weight.dim() == 2 || weight.dim() == 3,
                    "weight must be 2-D (K, N) or, for a batch of products, "
                    "3-D (batch, K, N), got shape ",
                    shapeText(weight.sym_sizes()));
  bool batched = weight.dim() == 3;
  if (batched) {
    TORCH_CHECK_VALUE(x.dim() == 3,
                      "x must be 3-D (batch, M, K) with a 3-D weight, got "
                      "shape ",
                      shapeText(x.sym_sizes()));
    TORCH_CHECK_VALUE(x.sym_size(0) == weight.sym_size(0), "x's batch (",
                      sizeText(x.sym_size(0)), ") must equal weight's (",
                      sizeText(weight.sym_size(0)), ")");
  }
  TORCH_CHECK_VALUE(x.sym_size(-1) == weight.sym_size(-2),
                    "x's last dimension (", sizeText(x.sym_size(-1)),
                    ") must equal weight's ", batched ? "second" : "first",
                    " (K = ", sizeText(weight.sym_size(-2)),
                    batched ? "): weight is (batch, K, N)"
                            : "): weight is K x N (nn.Linear's weight.T)");
  c10::SymInt n = weight.sym_size(-1);
  if (bias) {
    TORCH_CHECK_TYPE(bias->scalar_type() == dtype, "bias must have x's dtype ",
                     dtype, ", got ", bias->scalar_type());
    bool vector = bias->dim() == 1 && bias->sym_size(0) == n;
    bool row =
        bias->dim() == 2 && bias->sym_size(0) == 1 && bias->sym_size(1) == n;
    TORCH_CHECK_VALUE(vector || row, "bias must have shape (", sizeText(n),
                      ",) or (1, ", sizeText(n), "), got ",
                      shapeText(bias->sym_sizes()));
  }
  if (devices)
    checkDevices(x, weight, bias);
  checkOptions(maxSplits, outer, activation, slices, backend);
  if (batched) {
    // The library's batched variants have no epilogue (VariantKey.batched).
    TORCH_CHECK_VALUE(!bias, "bias is not supported with a batched (3-D) "
                             "weight: add it to the result");
    TORCH_CHECK_VALUE(activation == "none",
                      "activation is not supported with a batched (3-D) "
                      "weight: apply it to the result");
  }
  return {outer == "f16", std::string(activation), std::string(backend)};
}

c10::SymDimVector outShape(const at::Tensor &x, const at::Tensor &weight) {
  c10::SymDimVector shape(x.sym_sizes().begin(), x.sym_sizes().end() - 1);
  shape.push_back(weight.sym_size(-1));
  return shape;
}

at::Tensor activate(const at::Tensor &t, const std::string &activation) {
  if (activation == "relu")
    return at::relu(t);
  if (activation == "gelu")
    return at::gelu(t);
  return t;
}

/// `t` as the 2-D matrix of its rows (every dimension but the last
/// flattened). Not reshape({-1, cols}): that cannot count the rows of an
/// empty last dimension (K or N = 0).
at::Tensor asRows(const at::Tensor &t) {
  int64_t rows = c10::multiply_integers(t.sizes().begin(), t.sizes().end() - 1);
  return t.reshape({rows, t.size(-1)});
}

at::Tensor splitKMeta(const at::Tensor &x, const at::Tensor &weight,
                      const std::optional<at::Tensor> &bias, int64_t maxSplits,
                      c10::string_view outer, c10::string_view activation,
                      int64_t slices, c10::string_view backend) {
  checkArguments(x, weight, bias, maxSplits, outer, activation, slices, backend,
                 /*devices=*/false);
  return at::empty_symint(outShape(x, weight), x.options());
}

at::Tensor splitKHost(const at::Tensor &x, const at::Tensor &weight,
                      const std::optional<at::Tensor> &bias, int64_t maxSplits,
                      c10::string_view outer, c10::string_view activation,
                      int64_t slices, c10::string_view backend) {
  // Raises: some operand is on the host.
  checkArguments(x, weight, bias, maxSplits, outer, activation, slices, backend,
                 /*devices=*/true);
  TORCH_CHECK_VALUE(false, "gpupoor::split_k_matmul takes CUDA tensors");
}

void splitKTriton(const at::Tensor &a, const at::Tensor &b,
                  const std::optional<at::Tensor> &bias, const at::Tensor &out,
                  int64_t maxSplits, const std::string &outer,
                  const std::string &activation, int64_t slices) {
  // The triton backend's operator, defined by the Python package (Triton is
  // Python's): called boxed, as a Python kernel is.
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("gpupoor::split_k_triton",
                                                     "");
  torch::jit::Stack stack;
  stack.emplace_back(a);
  stack.emplace_back(b);
  stack.emplace_back(bias);
  stack.emplace_back(out);
  stack.emplace_back(maxSplits);
  stack.emplace_back(outer);
  stack.emplace_back(activation);
  stack.emplace_back(slices);
  op.callBoxed(stack);
}

at::Tensor splitKCuda(const at::Tensor &x, const at::Tensor &weight,
                      const std::optional<at::Tensor> &givenBias,
                      int64_t maxSplits, c10::string_view outerName,
                      c10::string_view activationName, int64_t slices,
                      c10::string_view backendName) {
  Options o = checkArguments(x, weight, givenBias, maxSplits, outerName,
                             activationName, slices, backendName,
                             /*devices=*/true);
  c10::cuda::CUDAGuard guard(x.device());
  int64_t k = weight.size(-2), n = weight.size(-1);
  at::Tensor a = x, b = weight;
  // A batch of products (x and weight 3-D) of one element runs as the 2-D
  // product it is, on the 2-D families.
  if (b.dim() == 3 && b.size(0) == 1)
    std::tie(a, b) = std::make_tuple(x[0], weight[0]);
  bool batched = b.dim() == 3;
  if (!batched && a.dim() != 2)
    a = asRows(a);
  int64_t m = a.size(-2);
  std::optional<at::Tensor> bias = givenBias;
  if (bias && bias->dim() != 1)
    bias = bias->reshape({n});
  // The result is allocated in its final shape and returned as is (not as
  // a view, which autograd would refuse to see modified in place).
  auto shape = x.sizes().vec();
  shape.back() = n;
  at::Tensor result = at::empty(shape, x.options());
  at::Tensor out = batched ? result : result.view({m, n});
  if (result.numel() == 0)
    return result;
  if (k == 0) {
    at::Tensor acc = at::zeros(out.sizes(), x.options().dtype(at::kFloat));
    if (bias)
      acc += bias->to(at::kFloat);
    out.copy_(activate(acc, o.activation));
    return result;
  }
  if (a.scalar_type() == at::kFloat) {
    // f32 operands are rounded to f16 for the product (as gpu_poor does);
    // the f32 result is not rounded again.
    a = a.to(at::kHalf);
    b = b.to(at::kHalf);
  }
  std::string backend = o.backend;
  if (backend == "auto")
    backend = defaultBackend(x.get_device());
  if (backend == "triton") {
    // The Triton kernels' fast ones read A's rows along K. They take one
    // product a launch: a batch runs a launch an element.
    if (a.stride(-2) == 1 && a.stride(-1) != 1)
      a = a.contiguous();
    std::string outer = o.f16Outer ? "f16" : "f32";
    if (batched) {
      for (int64_t i = 0; i < a.size(0); ++i)
        splitKTriton(a[i], b[i], bias, out[i], maxSplits, outer, o.activation,
                     slices);
    } else {
      splitKTriton(a, b, bias, out, maxSplits, outer, o.activation, slices);
    }
  } else {
    LaunchOperands ops = launchOperands(a, b, slices, maxSplits);
    a = ops.a;
    b = ops.b;
    VariantKey key = variantKey(a, b, bias.has_value(), o.activation, o.f16Outer,
                                out.scalar_type() == at::kFloat, maxSplits);
    key.aCopiedFromKM = ops.aCopiedFromKM;
    launch(a, b, bias, out, key, slices);
  }
  return result;
}

using Signature = at::Tensor(const at::Tensor &, const at::Tensor &,
                             const std::optional<at::Tensor> &, int64_t,
                             c10::string_view, c10::string_view, int64_t,
                             c10::string_view);

const c10::TypedOperatorHandle<Signature> &splitKOp() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("gpupoor::split_k_matmul", "")
                             .typed<Signature>();
  return op;
}

/// Autograd: dx = g W^T and dW = x^T g, through the operator itself (its
/// f16 inner sums, the forward's options), and the bias's gradient in f32.
/// ReLU's derivative reads the saved output. GELU's reads the
/// pre-activation: where a gradient will be taken (`keepPreActivation`),
/// the forward's kernel writes the pre-activation z and GELU runs on it
/// apart (at::gelu, as nn.Linear followed by nn.GELU computes it: the
/// output is GELU of z rounded to C's type), so that the backward needs no
/// second product; otherwise GELU stays in the kernel's epilogue.
class SplitKFunction : public torch::autograd::Function<SplitKFunction> {
public:
  static at::Tensor forward(torch::autograd::AutogradContext *ctx,
                            const at::Tensor &x, const at::Tensor &weight,
                            const std::optional<at::Tensor> &bias,
                            int64_t maxSplits, c10::string_view outer,
                            c10::string_view activation, int64_t slices,
                            c10::string_view backend, bool keepPreActivation) {
    at::AutoDispatchBelowADInplaceOrView below;
    bool keepZ = activation == "gelu" && keepPreActivation;
    at::Tensor z, out;
    if (keepZ) {
      z = splitKOp().call(x, weight, bias, maxSplits, outer, "none", slices,
                          backend);
      out = at::gelu(z);
    } else {
      out = splitKOp().call(x, weight, bias, maxSplits, outer, activation,
                            slices, backend);
    }
    ctx->saved_data["max_k_splits"] = maxSplits;
    ctx->saved_data["outer"] = std::string(outer);
    ctx->saved_data["activation"] = std::string(activation);
    ctx->saved_data["slices"] = slices;
    ctx->saved_data["backend"] = std::string(backend);
    ctx->saved_data["has_bias"] = bias.has_value();
    ctx->save_for_backward({x, weight, bias ? *bias : at::Tensor(),
                            activation == "relu" ? out : z});
    return out;
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    // saved[3]: ReLU's output, or GELU's pre-activation.
    const at::Tensor &x = saved[0], &weight = saved[1], &bias = saved[2],
                     &out = saved[3];
    int64_t maxSplits = ctx->saved_data["max_k_splits"].toInt();
    std::string outer = ctx->saved_data["outer"].toStringRef();
    std::string activation = ctx->saved_data["activation"].toStringRef();
    int64_t slices = ctx->saved_data["slices"].toInt();
    std::string backend = ctx->saved_data["backend"].toStringRef();
    bool hasBias = ctx->saved_data["has_bias"].toBool();
    // A plain product with the forward's options.
    auto product = [&](const at::Tensor &a, const at::Tensor &b) {
      return splitKOp().call(a, b, std::nullopt, maxSplits, outer, "none",
                             slices, backend);
    };
    at::Tensor grad = grads[0];
    if (activation == "relu") {
      grad = grad * (out > 0);
    } else if (activation == "gelu") {
      // Autograd records this node exactly where splitKAutograd's
      // keepPreActivation held, so the forward kept z.
      TORCH_INTERNAL_ASSERT(out.defined(),
                            "gpupoor: GELU's pre-activation was not kept");
      at::Tensor z = out;
      // A backward that builds a graph (create_graph, a second derivative)
      // needs z as a function of x, W and the bias: the saved z, made below
      // autograd, would be a constant there and drop GELU's second
      // derivative. The product again, through the operator (the same
      // kernel: the same z).
      if (at::GradMode::is_enabled())
        z = splitKOp().call(x, weight,
                            hasBias ? std::optional(bias) : std::nullopt,
                            maxSplits, outer, "none", slices, backend);
      z = z.to(at::kFloat);
      at::Tensor cdf = 0.5 * (1 + at::erf(z * 0.7071067811865476));
      at::Tensor pdf = at::exp(-0.5 * z * z) * 0.3989422804014327;
      grad = (grad.to(at::kFloat) * (cdf + z * pdf)).to(grad.scalar_type());
    }
    at::Tensor gradX, gradW, gradBias;
    if (ctx->needs_input_grad(0))
      gradX = product(grad, weight.transpose(-2, -1));
    if (ctx->needs_input_grad(1) && weight.dim() == 3) {
      // A batch's dW (batch, K, N) = x^T (batch, K, M) @ g (batch, M, N),
      // x^T a view (A stored K x M), read as it is or copied as above.
      gradW = product(x.transpose(-2, -1), grad);
    } else if (ctx->needs_input_grad(1)) {
      // dW^T (N, K) = g^T (N, M) @ x (M, K), g^T a view (A stored K x M):
      // the launch reads it as it is where a K x M kernel takes it (sm_90a)
      // and copies it otherwise (splitKCuda). The transpose is a K x N view
      // laid out as nn.Linear's weight.
      gradW = product(asRows(grad).contiguous().t(), asRows(x)).t();
    }
    // One launch: PyTorch's sum of f16 accumulates in f32 and rounds once
    // to the bias's type, as a sum in f32 and a cast would (two launches,
    // which a host-bound training step pays for).
    if (hasBias && ctx->needs_input_grad(2))
      gradBias = asRows(grad)
                     .sum(0, /*keepdim=*/false, bias.scalar_type())
                     .reshape(bias.sizes());
    return {gradX,        gradW,        gradBias,
            at::Tensor(), at::Tensor(), at::Tensor(),
            at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

at::Tensor splitKAutograd(const at::Tensor &x, const at::Tensor &weight,
                          const std::optional<at::Tensor> &bias,
                          int64_t maxSplits, c10::string_view outer,
                          c10::string_view activation, int64_t slices,
                          c10::string_view backend) {
  // Whether autograd will take a gradient of this call (not under no_grad,
  // some operand requiring one).
  bool keep = at::GradMode::is_enabled() &&
              (x.requires_grad() || weight.requires_grad() ||
               (bias && bias->requires_grad()));
  return SplitKFunction::apply(x, weight, bias, maxSplits, outer, activation,
                               slices, backend, keep);
}

/// Under torch.autocast on CUDA: the operands' f16 casts, as autocast casts
/// a matmul's (at::autocast::cached_cast: a parameter's cast is made once
/// and reused until the autocast region ends, so f32 master weights are
/// rounded once a step, not once a call). The operator's products are f16
/// whatever autocast's dtype: bf16 inputs are cast to f16 too, as the
/// operator's f16 inner sums require.
at::Tensor autocastHalf(const at::Tensor &t) {
  // A transposed parameter (LowPrecisionLinear's weight.T, `x @ w.T`) is not
  // itself a leaf, so cached_cast would copy it every call: cast its base,
  // the parameter, through the cache and transpose that.
  if (t.scalar_type() != at::kHalf && t.is_view() && t.dim() == 2) {
    at::Tensor base(t._base());
    if (base.dim() == 2 && base.is_leaf() && base.requires_grad() &&
        t.sizes()[0] == base.sizes()[1] && t.sizes()[1] == base.sizes()[0] &&
        t.strides()[0] == base.strides()[1] &&
        t.strides()[1] == base.strides()[0] &&
        t.storage_offset() == base.storage_offset())
      return at::autocast::cached_cast(at::kHalf, base, c10::DeviceType::CUDA)
          .t();
  }
  return at::autocast::cached_cast(at::kHalf, t, c10::DeviceType::CUDA);
}

at::Tensor splitKAutocast(const at::Tensor &x, const at::Tensor &weight,
                          const std::optional<at::Tensor> &bias,
                          int64_t maxSplits, c10::string_view outer,
                          c10::string_view activation, int64_t slices,
                          c10::string_view backend) {
  c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::DispatchKey::AutocastCUDA);
  std::optional<at::Tensor> castBias;
  if (bias)
    castBias = autocastHalf(*bias);
  return splitKOp().call(autocastHalf(x), autocastHalf(weight), castBias,
                         maxSplits, outer, activation, slices, backend);
}

//===----------------------------------------------------------------------===//
// The eager entry of split_k_sequential
//===----------------------------------------------------------------------===//

at::Tensor tensorArg(py::handle obj, const char *name) {
  if (!THPVariable_Check(obj.ptr()))
    throw py::type_error(
        std::string(name) + " must be a torch.Tensor, got " +
        std::string(py::str(py::type::of(obj).attr("__name__"))));
  return THPVariable_Unpack(obj.ptr());
}

/// An int argument in [least, most] (`note` said after the range).
int64_t intArg(py::handle obj, const char *name, int64_t least, int64_t most,
               const char *note = "") {
  auto refuse = [&]() {
    return py::value_error(std::string(name) + " must be an int in [" +
                           std::to_string(least) + ", " + std::to_string(most) +
                           "]" + note + ", got " + std::string(py::repr(obj)));
  };
  if (!PyLong_Check(obj.ptr()) || PyBool_Check(obj.ptr()))
    throw refuse();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow || v < least || v > most)
    throw refuse();
  return v;
}

/// A str argument, or `none` for None (where the argument takes None); any
/// other object goes to the checks as its repr, which no option spells.
std::string strArg(py::handle obj, const char *none) {
  if (obj.is_none())
    return none ? none : "None";
  if (PyUnicode_Check(obj.ptr()))
    return obj.cast<std::string>();
  return std::string(py::repr(obj));
}

/// split_k_sequential's arguments checked by name, then the operator through
/// the dispatcher (autograd, dispatch modes and tracing see it).
at::Tensor splitKSequential(py::handle x, py::handle weight, py::handle bias,
                            py::handle maxSplits, py::handle outer,
                            py::handle activation, py::handle slices,
                            py::handle backend) {
  at::Tensor xt = tensorArg(x, "x");
  at::Tensor wt = tensorArg(weight, "weight");
  std::optional<at::Tensor> bt;
  if (!bias.is_none()) {
    if (!THPVariable_Check(bias.ptr()))
      throw py::type_error(
          "bias must be a torch.Tensor or None, got " +
          std::string(py::str(py::type::of(bias).attr("__name__"))));
    bt = THPVariable_Unpack(bias.ptr());
  }
  int64_t splits = intArg(maxSplits, "max_k_splits", 1, policy::kMaxSplits);
  int64_t sliceCount =
      intArg(slices, "slices", 0, policy::kMaxSlices, " (0: automatic)");
  std::string outerName = strArg(outer, nullptr);
  std::string act = strArg(activation, "none");
  if (act == "none" && !activation.is_none())
    act = "'none'"; // the argument takes None, not "none"
  std::string backendName = strArg(backend, "auto");
  if (backendName == "auto" && !backend.is_none())
    backendName = "'auto'";
  // Under autocast the operator's autocast kernel casts the operands first
  // (splitKAutocast) and its CUDA kernel checks what it gets, as
  // torch.matmul takes an f16 x and an f32 weight there.
  if (!at::autocast::is_autocast_enabled(at::kCUDA))
    checkArguments(xt, wt, bt, splits, outerName, act, sliceCount, backendName,
                   /*devices=*/true);
  return splitKOp().call(xt, wt, bt, splits, outerName, act, sliceCount,
                         backendName);
}

} // namespace

void bindOps(py::module_ &m) {
  m.def("split_k_sequential", &splitKSequential, "x"_a, "weight"_a,
        "bias"_a = py::none(), "max_k_splits"_a = policy::kDefaultMaxSplits,
        "outer"_a = "f32", "activation"_a = py::none(), "slices"_a = 0,
        "backend"_a = py::none(),
        "gpupoor.split_k_sequential's eager path: its arguments checked by "
        "name, then gpupoor::split_k_matmul.");
  m.def(
      "padded_row_elems",
      [](int64_t cols) {
        TORCH_CHECK_VALUE(cols >= 1, "cols must be >= 1, got ", cols);
        return policy::paddedRowElems(cols);
      },
      "cols"_a,
      "The row length, in elements, of a copy into padded rows of rows of "
      "`cols` elements (policy::paddedRowElems): `cols` where it is a "
      "multiple of 8, else the next multiple of 16.");
  m.def(
      "_copy_unaligned",
      [](const std::string &mode) {
        TORCH_CHECK_VALUE(
            mode == "policy" || mode == "never" || mode == "always",
            "mode must be 'policy', 'never' or 'always', got '", mode, "'");
        setUnalignedCopies(mode == "policy"  ? UnalignedCopies::Policy
                           : mode == "never" ? UnalignedCopies::Never
                                             : UnalignedCopies::Always);
      },
      "mode"_a,
      "For the benchmarks and tests only (benchmarks/force_choice.py's nopad "
      "and pad): which calls copy operands whose rows lie off 16 bytes into "
      "padded rows, 'policy' (policy::copiesUnalignedOperands, the default), "
      "'never' (the kernels that take them as they lie; an A stored K x M "
      "that is copied anyway, M x K or as it lies into padded rows "
      "(policy::Strategy::padsA), keeps its padded rows) or 'always'.");
  m.def(
      "_padded_rows",
      [](const at::Tensor &t) {
        TORCH_CHECK_VALUE(t.is_cuda() && (t.dim() == 2 || t.dim() == 3),
                          "t must be a 2-D or 3-D CUDA tensor");
        c10::cuda::CUDAGuard guard(t.device());
        return paddedRows(t, t.stride(-1) == 1);
      },
      "t"_a,
      "For the tests: `t`'s copy into rows padded to a multiple of 8 "
      "elements along its unit stride (or along its last dimension), as the "
      "package makes it of an operand whose rows lie off 16 bytes (by the "
      "library's row-copy kernel where it has one, else by torch).");
}

} // namespace gpupoor::package

TORCH_LIBRARY(gpupoor, m) {
  // The default max_k_splits is the policy's (parsed here, not kept).
  std::string schema =
      "split_k_matmul(Tensor x, Tensor weight, Tensor? bias=None, "
      "int max_k_splits=" +
      std::to_string(mlir::gpupoor::policy::kDefaultMaxSplits) +
      ", str outer=\"f32\", str activation=\"none\", int slices=0, "
      "str backend=\"auto\") -> Tensor";
  m.def(schema.c_str());
}

TORCH_LIBRARY_IMPL(gpupoor, CUDA, m) {
  m.impl("split_k_matmul", &gpupoor::package::splitKCuda);
}

TORCH_LIBRARY_IMPL(gpupoor, Meta, m) {
  m.impl("split_k_matmul", &gpupoor::package::splitKMeta);
}

TORCH_LIBRARY_IMPL(gpupoor, CPU, m) {
  m.impl("split_k_matmul", &gpupoor::package::splitKHost);
}

TORCH_LIBRARY_IMPL(gpupoor, AutocastCUDA, m) {
  m.impl("split_k_matmul", &gpupoor::package::splitKAutocast);
}

TORCH_LIBRARY_IMPL(gpupoor, Autograd, m) {
  m.impl("split_k_matmul", &gpupoor::package::splitKAutograd);
}
