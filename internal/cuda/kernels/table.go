package kernels

// kernelID names one kernel of the PTX modules; kernelTable gives its
// family (the .cu and ptx file) and its PTX entry name.
type kernelID int

const (
	kNeg kernelID = iota
	kScale
	kAddScalar
	kOneMinus
	kExp
	kLog
	kSqrt
	kRsqrt
	kTanh
	kSquare
	kAbs
	kSign
	kClip
	kClipMask
	kStepAbove
	kSoftplus
	kRelu
	kSigmoid
	kRoundBF16
	kAdd
	kSub
	kMul
	kDiv
	kMaximum
	kGreaterEqual
	kReluGrad
	kAddRelu
	kFill
	kStatusReset

	kBcastAdd
	kBcastSub
	kBcastMul
	kBcastDiv
	kBcastMaximum
	kBcastGreaterEqual
	kBroadcastTo
	kBiasAdd
	kBiasAddRelu

	kSumCols
	kSumRows
	kSumCombine
	kSumStrided
	kMaxReduce
	kScatterAdd

	kBoxCopy
	kReverse
	kGather
	kGatherGrad
	kPixelGather
	kPixelGatherGrad

	kSparseXent
	kSparseXentGrad
	kSoftmaxXent
	kSigmoidXent

	kSGD
	kSGDMomentum
	kAdam
	kRMSprop
	kWeightDecay
	kClipNorm
	kClipGlobalNorm
	kSumF64

	kReplicaSum

	kBNSums
	kBNSumsCombine
	kBNMoments
	kBNPack
	kBNApply
	kBNGradInput
	kBNParamGrad

	numKernels
)

// kernelSpec names a kernel and its parameters, one letter each: p a
// device pointer, l an int64, f a float32, d a float64, S a Strided, R a
// Reduction, B a ReplicaBufs (ptx_test.go checks them against the PTX;
// every launch checks its arguments against them).
type kernelSpec struct{ family, name, sig string }

// families lists the PTX modules, one per .cu file.
var families = []string{"batchnorm", "broadcast", "elementwise", "layout", "losses", "optimizers", "reduce", "replica_sum"}

var kernelTable = [numKernels]kernelSpec{
	kNeg:          {"elementwise", "gk_neg", "ppl"},
	kScale:        {"elementwise", "gk_scale", "pplf"},
	kAddScalar:    {"elementwise", "gk_add_scalar", "pplf"},
	kOneMinus:     {"elementwise", "gk_one_minus", "ppl"},
	kExp:          {"elementwise", "gk_exp", "ppl"},
	kLog:          {"elementwise", "gk_log", "ppl"},
	kSqrt:         {"elementwise", "gk_sqrt", "ppl"},
	kRsqrt:        {"elementwise", "gk_rsqrt", "ppl"},
	kTanh:         {"elementwise", "gk_tanh", "ppl"},
	kSquare:       {"elementwise", "gk_square", "ppl"},
	kAbs:          {"elementwise", "gk_abs", "ppl"},
	kSign:         {"elementwise", "gk_sign", "ppl"},
	kClip:         {"elementwise", "gk_clip", "pplff"},
	kClipMask:     {"elementwise", "gk_clip_mask", "pplff"},
	kStepAbove:    {"elementwise", "gk_step_above", "pplf"},
	kSoftplus:     {"elementwise", "gk_softplus", "ppl"},
	kRelu:         {"elementwise", "gk_relu", "ppl"},
	kSigmoid:      {"elementwise", "gk_sigmoid", "ppl"},
	kRoundBF16:    {"elementwise", "gk_round_bf16", "ppl"},
	kAdd:          {"elementwise", "gk_add", "pppl"},
	kSub:          {"elementwise", "gk_sub", "pppl"},
	kMul:          {"elementwise", "gk_mul", "pppl"},
	kDiv:          {"elementwise", "gk_div", "pppl"},
	kMaximum:      {"elementwise", "gk_maximum", "pppl"},
	kGreaterEqual: {"elementwise", "gk_greater_equal", "pppl"},
	kReluGrad:     {"elementwise", "gk_relu_grad", "pppl"},
	kAddRelu:      {"elementwise", "gk_add_relu", "pppl"},
	kFill:         {"elementwise", "gk_fill", "plf"},
	kStatusReset:  {"elementwise", "gk_status_reset", "p"},

	kBcastAdd:          {"broadcast", "gk_bcast_add", "ppplS"},
	kBcastSub:          {"broadcast", "gk_bcast_sub", "ppplS"},
	kBcastMul:          {"broadcast", "gk_bcast_mul", "ppplS"},
	kBcastDiv:          {"broadcast", "gk_bcast_div", "ppplS"},
	kBcastMaximum:      {"broadcast", "gk_bcast_maximum", "ppplS"},
	kBcastGreaterEqual: {"broadcast", "gk_bcast_greater_equal", "ppplS"},
	kBroadcastTo:       {"broadcast", "gk_broadcast_to", "pplS"},
	kBiasAdd:           {"broadcast", "gk_bias_add", "pppll"},
	kBiasAddRelu:       {"broadcast", "gk_bias_add_relu", "pppll"},

	kSumCols:    {"reduce", "gk_sum_cols", "pppplllll"},
	kSumRows:    {"reduce", "gk_sum_rows", "pppplllll"},
	kSumCombine: {"reduce", "gk_sum_combine", "ppplll"},
	kSumStrided: {"reduce", "gk_sum_strided", "pplR"},
	kMaxReduce:  {"reduce", "gk_max_reduce", "ppplR"},
	kScatterAdd: {"reduce", "gk_scatter_add", "ppppl"},

	kBoxCopy:         {"layout", "gk_box_copy", "pplllS"},
	kReverse:         {"layout", "gk_reverse", "pplll"},
	kGather:          {"layout", "gk_gather", "pppplll"},
	kGatherGrad:      {"layout", "gk_gather_grad", "ppppllll"},
	kPixelGather:     {"layout", "gk_pixel_gather", "pppllf"},
	kPixelGatherGrad: {"layout", "gk_pixel_gather_grad", "ppppll"},

	kSparseXent:     {"losses", "gk_sparse_xent", "ppppll"},
	kSparseXentGrad: {"losses", "gk_sparse_xent_grad", "pppppll"},
	kSoftmaxXent:    {"losses", "gk_softmax_xent", "pppll"},
	kSigmoidXent:    {"losses", "gk_sigmoid_xent", "pppl"},

	kSGD:            {"optimizers", "gk_sgd", "pppl"},
	kSGDMomentum:    {"optimizers", "gk_sgd_momentum", "ppppll"},
	kAdam:           {"optimizers", "gk_adam", "ppppppl"},
	kRMSprop:        {"optimizers", "gk_rmsprop", "ppppppl"},
	kWeightDecay:    {"optimizers", "gk_weight_decay", "ppl"},
	kClipNorm:       {"optimizers", "gk_clip_norm", "ppld"},
	kClipGlobalNorm: {"optimizers", "gk_clip_global_norm", "ppld"},
	kSumF64:         {"optimizers", "gk_sum_f64", "ppl"},

	kReplicaSum: {"replica_sum", "gk_replica_sum", "plB"},

	kBNSums:        {"batchnorm", "gk_bn_sums", "pppppplllll"},
	kBNSumsCombine: {"batchnorm", "gk_bn_sums_combine", "ppllll"},
	kBNMoments:     {"batchnorm", "gk_bn_moments", "ppl"},
	kBNPack:        {"batchnorm", "gk_bn_pack", "pppl"},
	kBNApply:       {"batchnorm", "gk_bn_apply", "pppppllfl"},
	kBNGradInput:   {"batchnorm", "gk_bn_grad_input", "pppppppllfl"},
	kBNParamGrad:   {"batchnorm", "gk_bn_param_grad", "ppplfl"},
}

// unaryKinds maps the Kind of each unary op of package ops (and of
// layers.ReLU's StepAbove) to its kernel; Scale, AddScalar and StepAbove
// take one constant (attrs C), Clip and ClipMask two (C, D).
var unaryKinds = map[string]kernelID{
	"Neg": kNeg, "Scale": kScale, "AddScalar": kAddScalar, "OneMinus": kOneMinus,
	"Exp": kExp, "Log": kLog, "Sqrt": kSqrt, "Rsqrt": kRsqrt, "Tanh": kTanh,
	"Square": kSquare, "Abs": kAbs, "Sign": kSign, "Clip": kClip, "ClipMask": kClipMask,
	"StepAbove": kStepAbove, "Softplus": kSoftplus, "Relu": kRelu, "Sigmoid": kSigmoid,
	"CastToBFloat16": kRoundBF16,
}

// binaryKinds maps the Kind of each binary op of package ops to its kernel
// on equal shapes and its broadcasting kernel (-1: none, equal shapes
// only).
var binaryKinds = map[string][2]kernelID{
	"Add":          {kAdd, kBcastAdd},
	"Sub":          {kSub, kBcastSub},
	"Mul":          {kMul, kBcastMul},
	"Div":          {kDiv, kBcastDiv},
	"Maximum":      {kMaximum, kBcastMaximum},
	"GreaterEqual": {kGreaterEqual, kBcastGreaterEqual},
	"ReluGrad":     {kReluGrad, -1},
	"AddRelu":      {kAddRelu, -1},
}

// UnaryKinds returns the op Kinds [Unary] runs.
func UnaryKinds() []string { return sortedKeys(unaryKinds) }

// BinaryKinds returns the op Kinds [Binary] runs; those that broadcast
// are the ones [BinaryBroadcast] runs too.
func BinaryKinds() []string { return sortedKeys(binaryKinds) }
