// elementwise.cu: the unary and same-shape binary ops of package ops
// (ops/elementwise.go, ops/activation.go, the ReLU family of ops/fused.go),
// a fill and the status word reset. Each kernel mirrors the CPU loop named
// in its comment; out may be the same buffer as an input.
#include "common.cuh"

#define GK_UNARY(name, expr)                                                \
  extern "C" __global__ void name(float *out, const float *x, i64 n) {      \
    GK_LOOP(i, n) {                                                         \
      float v = x[i];                                                       \
      out[i] = (expr);                                                      \
    }                                                                       \
  }

#define GK_UNARY1(name, expr)                                               \
  extern "C" __global__ void name(float *out, const float *x, i64 n, float c) { \
    GK_LOOP(i, n) {                                                         \
      float v = x[i];                                                       \
      out[i] = (expr);                                                      \
    }                                                                       \
  }

#define GK_UNARY2(name, expr)                                               \
  extern "C" __global__ void name(float *out, const float *x, i64 n, float c, float d) { \
    GK_LOOP(i, n) {                                                         \
      float v = x[i];                                                       \
      out[i] = (expr);                                                      \
    }                                                                       \
  }

#define GK_BINARY(name, expr)                                               \
  extern "C" __global__ void name(float *out, const float *a, const float *b, i64 n) { \
    GK_LOOP(i, n) {                                                         \
      float u = a[i], v = b[i];                                             \
      out[i] = (expr);                                                      \
    }                                                                       \
  }

__device__ __forceinline__ float gk_sigmoid(float v) {
  if (v >= 0) return (float)(1.0 / (1.0 + exp(-(double)v)));
  double e = exp((double)v);
  return (float)(e / (1.0 + e));
}

__device__ __forceinline__ float gk_bf16_round(float v) {
  unsigned b = __float_as_uint(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) return __uint_as_float((b | 0x00400000u) & 0xffff0000u);
  b += 0x7fffu + ((b >> 16) & 1u);
  return __uint_as_float(b & 0xffff0000u);
}

__device__ __forceinline__ float gk_softplus(float v) {
  double x = v;
  return (float)((x > 0 ? x : 0.0) + log1p(exp(-fabs(x))));
}

// Neg: -x (vec.Scale by -1).
GK_UNARY(gk_neg, -v)
// Scale: c*x (vec.Scale).
GK_UNARY1(gk_scale, c * v)
// AddScalar: x + c (vec.AddScalar).
GK_UNARY1(gk_add_scalar, v + c)
// OneMinus: 1 - x.
GK_UNARY(gk_one_minus, 1.0f - v)
// Exp, Log, Sqrt, Rsqrt, Tanh: in float64, rounded to float32.
GK_UNARY(gk_exp, (float)exp((double)v))
GK_UNARY(gk_log, (float)log((double)v))
GK_UNARY(gk_sqrt, (float)sqrt((double)v))
GK_UNARY(gk_rsqrt, (float)(1.0 / sqrt((double)v)))
GK_UNARY(gk_tanh, (float)tanh((double)v))
// Square: x*x (vec.Square).
GK_UNARY(gk_square, v * v)
// Abs: the sign bit cleared.
GK_UNARY(gk_abs, __int_as_float(__float_as_int(v) & 0x7fffffff))
// Sign: 1, -1 or 0 (NaN gives 0).
GK_UNARY(gk_sign, v > 0 ? 1.0f : (v < 0 ? -1.0f : 0.0f))
// Clip: min(max(x, lo), hi) with Go's NaN-propagating min and max.
GK_UNARY2(gk_clip, gk_min(gk_max(v, c), d))
// ClipMask: 1 where lo <= x <= hi, else 0.
GK_UNARY2(gk_clip_mask, (v >= c && v <= d) ? 1.0f : 0.0f)
// StepAbove (layers.ReLU): 1 where x >= t, else 0.
GK_UNARY1(gk_step_above, v >= c ? 1.0f : 0.0f)
// Softplus: max(x, 0) + log1p(exp(-|x|)) in float64.
GK_UNARY(gk_softplus, gk_softplus(v))
// Relu: 0 where x < 0, else x, so NaN propagates (vec.Relu).
GK_UNARY(gk_relu, v < 0 ? 0.0f : v)
// Sigmoid: 1/(1+e^-x), or e^x/(1+e^x) for negative x, in float64.
GK_UNARY(gk_sigmoid, gk_sigmoid(v))
// RoundBF16 (ops.RoundBFloat16, the CastToBFloat16 op): the nearest
// bfloat16, ties to even, kept in a float32; beyond bfloat16's largest
// finite value ±inf; a NaN stays a quiet NaN of the same sign.
GK_UNARY(gk_round_bf16, gk_bf16_round(v))

// The binary arithmetic of runBinary on equal shapes.
GK_BINARY(gk_add, u + v)
GK_BINARY(gk_sub, u - v)
GK_BINARY(gk_mul, u * v)
GK_BINARY(gk_div, u / v)
GK_BINARY(gk_maximum, gk_max(u, v))
GK_BINARY(gk_greater_equal, u >= v ? 1.0f : 0.0f)
// ReluGrad (vec.ReluGrad): dy where y > 0, else 0; a is y, b is dy.
GK_BINARY(gk_relu_grad, u > 0 ? v : 0.0f)
// AddRelu (vec.AddRelu): 0 where a + b < 0, else a + b.
GK_BINARY(gk_add_relu, (u + v) < 0 ? 0.0f : (u + v))

// gk_fill sets out[i] = c.
extern "C" __global__ void gk_fill(float *out, i64 n, float c) {
  GK_LOOP(i, n) out[i] = c;
}

// gk_status_reset readies a status word: no failing position.
extern "C" __global__ void gk_status_reset(long long *status) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *status = 0x7fffffffffffffffLL;
}
