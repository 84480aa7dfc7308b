/* gen_trace: writes a synthetic PyTorch-profiler (Kineto) trace of exactly N
 * events, deterministic for a seed, in constant memory.
 *
 *   gen_trace --events N|--spans N --seed S [--ranks N [--rank R [--straggler R:DELAY[:STEP]]]]
 *             [--level L] [-o FILE]
 *
 * --rank R writes only rank R's file of an N-rank job (distributedInfo.rank
 * R): every rank's file is drawn from the same numbers, so the job's NCCL
 * kernels line up across the files. --straggler R:DELAY[:STEP] makes rank R's
 * GPU enter the first NCCL kernel of step STEP (default 2) DELAY ns late; the
 * other ranks' kernels wait for it, so all end together as a collective does.
 *
 * The output compression follows FILE's extension: .gz (zlib), .zst (zstd),
 * anything else plain JSON; no -o (or "-") writes plain JSON to stdout.
 * --zstd-frame MB ends a zstd frame after every MB MiB of JSON: a file of
 * several frames, as pzstd writes (less the skippable frames).
 * --spans N counts spans (X events) instead of events: exactly N either way.
 * A one-line JSON summary (events, spans, flows, bytes) goes to stderr.
 *
 * Shape, per rank (one CPU process with three threads and one GPU):
 * ProfilerStep#k on the main thread holds nn.Module python_function blocks of
 * nested aten:: cpu_ops; leaf ops call cudaLaunchKernel / cudaMemcpyAsync /
 * cudaMemsetAsync, each tied by an ac2g flow (s at the runtime call, f with
 * bp "e" at the GPU activity) to a kernel / gpu_memcpy / gpu_memset on a GPU
 * stream (pid = device, tid = stream). Backward ops run on the autograd
 * thread, data loading on a third thread, NCCL kernels when ranks > 1.
 * Parents are written before children (their extent is decided first, then
 * split), so memory is O(depth + ranks + streams) whatever N is.
 * Numbers are formatted by hand: snprintf would halve the throughput.
 *
 * Variants, for comparing two traces of one seed (tests/compare_steps.sh):
 *   --repeat-steps       every step of a rank draws from one seed (seed, rank):
 *                        the steps repeat the same work, as a training loop's
 *                        do, and the options below change only what they name
 *   --slow-kernel S:PCT  kernels whose name contains S last PCT% longer
 *   --slow-step K:F      ProfilerStep#K (1-based): its host and device work
 *                        last F times as long
 *   --wrapper            one more span (not counted in N): "wrapper" on a
 *                        thread of its own, over the whole trace
 * Each of them implies --repeat-steps.
 *   --sync-markers       after each launch to the side stream, the compute
 *                        stream waits for it: cudaEventRecord and
 *                        cudaStreamWaitEvent calls and Kineto's cuda_sync
 *                        marker (three more spans each, not counted in N)
 *
 * --kineto-order writes the same events in the order Kineto's exporter does:
 * the profiler's CPU ops (cpu_op, python_function, user_annotation) of the
 * whole trace first, then the activities (runtime calls, flows, GPU work,
 * markers). A host thread's spans then come as two runs, each in time order,
 * the second starting back at the trace's beginning. The trace is generated
 * twice from the seed, each pass writing one of the two kinds. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define OUT_CAP (4u << 20)
#define OUT_SLACK (64u << 10) /* largest event is a few KB */
#define NSTREAMS 4
#define MAX_RANKS 4096

enum sink_kind { SINK_PLAIN, SINK_GZIP, SINK_ZSTD };

struct out {
	char *buf;
	size_t len;
	enum sink_kind kind;
	FILE *f;
	z_stream z;
	ZSTD_CCtx *zc;
	char *zbuf;
	size_t zcap;
	uint64_t bytes; /* uncompressed JSON bytes */
	uint64_t frame_cap, frame_bytes; /* --zstd-frame: JSON bytes per frame, in this one */
	int failed;
};

static struct out O;

static void die(const char *msg, const char *subject)
{
	fprintf(stderr, "gen_trace: %s '%s'\n", msg, subject);
	exit(1);
}

static void sink_write(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, O.f) != n)
		O.failed = 1;
}

static void sink_push(const char *p, size_t n, int finish)
{
	if (O.kind == SINK_PLAIN) {
		sink_write(p, n);
	} else if (O.kind == SINK_GZIP) {
		O.z.next_in = (Bytef *)p;
		O.z.avail_in = (uInt)n;
		int rc;
		do {
			O.z.next_out = (Bytef *)O.zbuf;
			O.z.avail_out = (uInt)O.zcap;
			rc = deflate(&O.z, finish ? Z_FINISH : Z_NO_FLUSH);
			sink_write(O.zbuf, O.zcap - O.z.avail_out);
		} while (O.z.avail_out == 0 || (finish && rc != Z_STREAM_END));
	} else {
		ZSTD_inBuffer in = { p, n, 0 };
		size_t left;
		do {
			ZSTD_outBuffer ob = { O.zbuf, O.zcap, 0 };
			left = ZSTD_compressStream2(O.zc, &ob, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(left))
				die("zstd compression failed:", ZSTD_getErrorName(left));
			sink_write(O.zbuf, ob.pos);
		} while (finish ? left != 0 : in.pos < in.size);
	}
}

static void flush_out(int finish)
{
	O.bytes += O.len;
	O.frame_bytes += O.len;
	/* ending a frame: the next push starts another */
	int end_frame = O.frame_cap && O.frame_bytes >= O.frame_cap;
	sink_push(O.buf, O.len, finish || end_frame);
	if (end_frame)
		O.frame_bytes = 0;
	O.len = 0;
}

static inline void reserve(void)
{
	if (O.len > OUT_CAP - OUT_SLACK)
		flush_out(0);
}

static inline void put(const char *s, size_t n)
{
	memcpy(O.buf + O.len, s, n);
	O.len += n;
}
#define PUTS(lit) put(lit, sizeof(lit) - 1)

static inline void put_cstr(const char *s) { put(s, strlen(s)); }

static inline void put_u64(uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(tmp + i, (size_t)(24 - i));
}

/* Nanoseconds as microseconds with exactly three decimals. */
static inline void put_us3(uint64_t ns)
{
	put_u64(ns / 1000);
	uint32_t f = (uint32_t)(ns % 1000);
	char d[4] = { '.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10) };
	put(d, 4);
}

/* A fixed-point value v/1000, with three decimals when it has a fraction. */
static inline void put_milli(uint64_t v)
{
	if (v % 1000)
		put_us3(v);
	else
		put_u64(v / 1000);
}

/* ---- deterministic randomness (splitmix64 seeding xoshiro256**) ---- */
static uint64_t S[4];
static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t rnd(void)
{
	uint64_t r = rotl(S[1] * 5, 7) * 9, t = S[1] << 17;
	S[2] ^= S[0]; S[3] ^= S[1]; S[1] ^= S[2]; S[0] ^= S[3];
	S[2] ^= t; S[3] = rotl(S[3], 45);
	return r;
}
static inline uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static inline uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
static inline int chance(unsigned pct) { return below(100) < pct; }

/* ---- vocabulary, taken from real Kineto traces ---- */
struct op { const char *name, *dims, *types; };
static const struct op FWD_OPS[] = {
	{ "aten::linear", "[[64, 1024], [4096, 1024], [4096]]", "[\"float\", \"float\", \"float\"]" },
	{ "aten::conv2d", "[[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], []]", "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Int\"]" },
	{ "aten::batch_norm", "[[32, 64, 56, 56], [64], [64], [64], [64], [], [], [], []]", "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]" },
	{ "aten::relu_", "[[32, 64, 56, 56]]", "[\"float\"]" },
	{ "aten::layer_norm", "[[64, 512, 1024], [], [1024], [1024], [], []]", "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\", \"Scalar\"]" },
	{ "aten::matmul", "[[64, 16, 512, 64], [64, 16, 64, 512]]", "[\"float\", \"float\"]" },
	{ "aten::softmax", "[[64, 16, 512, 512], [], []]", "[\"float\", \"Scalar\", \"\"]" },
	{ "aten::dropout", "[[64, 512, 1024], [], []]", "[\"float\", \"Double\", \"Bool\"]" },
	{ "aten::add", "[[64, 512, 1024], [64, 512, 1024], []]", "[\"float\", \"float\", \"Scalar\"]" },
	{ "aten::embedding", "[[30522, 1024], [64, 512], [], [], []]", "[\"float\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]" },
	{ "aten::max_pool2d", "[[32, 64, 112, 112], [], [], [], [], []]", "[\"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\"]" },
	{ "aten::gelu", "[[64, 512, 4096], []]", "[\"float\", \"\"]" },
};
static const struct op INNER_OPS[] = {
	{ "aten::addmm", "[[4096], [64, 1024], [1024, 4096], [], []]", "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]" },
	{ "aten::cudnn_convolution", "[[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]", "[\"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]" },
	{ "aten::cudnn_batch_norm", "[[32, 64, 56, 56], [64], [64], [64], [64], [], [], []]", "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", \"Scalar\"]" },
	{ "aten::t", "[[4096, 1024]]", "[\"float\"]" },
	{ "aten::bmm", "[[1024, 512, 64], [1024, 64, 512]]", "[\"float\", \"float\"]" },
	{ "aten::_softmax", "[[64, 16, 512, 512], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]" },
	{ "aten::native_layer_norm", "[[64, 512, 1024], [], [1024], [1024], []]", "[\"float\", \"ScalarList\", \"float\", \"float\", \"Scalar\"]" },
	{ "aten::empty", "[[], [], [], [], [], []]", "[\"ScalarList\", \"Scalar\", \"\", \"Device\", \"\", \"\"]" },
	{ "aten::view", "[[64, 512, 1024], [4]]", "[\"float\", \"ScalarList\"]" },
	{ "aten::clamp_min_", "[[32, 64, 56, 56], []]", "[\"float\", \"Scalar\"]" },
	{ "aten::native_dropout", "[[64, 512, 1024], [], []]", "[\"float\", \"Double\", \"Bool\"]" },
	{ "aten::copy_", "[[64, 512], [64, 512], []]", "[\"long int\", \"long int\", \"Scalar\"]" },
	{ "aten::fill_", "[[64, 512, 1024], []]", "[\"float\", \"Scalar\"]" },
};
static const char *const BWD_OPS[] = {
	"autograd::engine::evaluate_function: AddmmBackward0",
	"autograd::engine::evaluate_function: ConvolutionBackward0",
	"autograd::engine::evaluate_function: NativeBatchNormBackward0",
	"autograd::engine::evaluate_function: ReluBackward0",
	"autograd::engine::evaluate_function: NativeLayerNormBackward0",
	"autograd::engine::evaluate_function: BmmBackward0",
	"autograd::engine::evaluate_function: SoftmaxBackward0",
	"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
};
static const char *const BWD_INNER[] = {
	"AddmmBackward0", "ConvolutionBackward0", "NativeBatchNormBackward0", "ReluBackward0",
	"NativeLayerNormBackward0", "BmmBackward0", "aten::mm", "aten::sum", "aten::threshold_backward",
	"aten::convolution_backward", "aten::native_batch_norm_backward", "aten::add_",
};
static const char *const KERNELS[] = {
	"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
	"ampere_sgemm_128x64_tn",
	"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel_trt",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
	"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
	"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)",
	"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
	"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
	"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
	"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<float const, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
	"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 3, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 3, 2, 0>, std::plus<float>, float)",
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
static const char *const MODULES[] = { "Embedding", "Linear", "LayerNorm", "Conv2d", "BatchNorm2d", "MultiheadAttention", "Dropout", "GELU" };
static const char *const MEMCPY_NAMES[] = { "Memcpy HtoD (Pinned -> Device)", "Memcpy DtoH (Device -> Pinned)", "Memcpy DtoD (Device -> Device)", "Memcpy HtoD (Pageable -> Device)" };
static const uint32_t STREAMS[NSTREAMS] = { 7, 13, 17, 21 }; /* compute, side, copy, nccl */

/* ---- generator state ---- */
struct rank {
	uint64_t pid, tid_main, tid_bwd, tid_load;
	uint32_t device;
	uint64_t t;                      /* the rank's CPU clock, ns */
	uint64_t stream_free[NSTREAMS];  /* when each GPU stream is idle again */
	uint64_t step, seq, rf_id, py_id;
};

static uint64_t left;                         /* events still to write */
static uint64_t n_events, n_spans, n_flows;
static uint64_t next_corr = 1000, next_ext = 1;
static int first_event = 1;
static int nranks = 1;
static int nrk = 1;            /* rank structs generated: nranks, or 1 with --rank */
static int only_rank = -1;     /* --rank R: this file is rank R of the job */
static int strag_rank = -1;    /* --straggler R:DELAY[:STEP] */
static uint64_t strag_delay, strag_step = 2;
/* The next NCCL kernel's straggler shift: rank R's kernel starts delay late
 * (launched in time, its GPU late), every other rank's kernel lasts extend longer
 * (it waits for R inside the collective). Then all ranks end it together. */
static uint64_t nccl_delay, nccl_extend;

static int budget_spans; /* --spans: the budget counts spans, not events */
static int step_seeds;            /* --repeat-steps */
static uint64_t base_seed;
static int sync_markers;          /* --sync-markers: side-stream joins as Kineto records them */
static const char *slow_kernel;   /* --slow-kernel S:PCT: the substring, */
static uint64_t slow_pct;         /* and how much longer */
static uint64_t slow_step, slow_factor = 1; /* --slow-step K:F */
static int wrapper;               /* --wrapper */
/* --kineto-order: the pass writes only the events of its kind (the others
 * are drawn and counted alike, then taken back out of the buffer) */
enum event_kind { CPU_OP_EVENT = 1, ACTIVITY_EVENT = 2 };
static int kineto_order;
static enum event_kind pass_kind = CPU_OP_EVENT;
static int dropping, drop_first;
static size_t drop_at;

/* Claims ev events holding sp spans, or nothing if the budget is short. */
static inline int take2(uint64_t ev, uint64_t sp)
{
	uint64_t k = budget_spans ? sp : ev;
	if (left < k)
		return 0;
	left -= k;
	n_events += ev;
	return 1;
}
static inline int take(uint64_t ev) { return take2(ev, ev); }

/* The event being written is taken back out where its pass does not
 * write its kind. */
static inline void end_drop(void)
{
	if (dropping) {
		O.len = drop_at;
		first_event = drop_first;
		dropping = 0;
	}
}

static inline void open_event_of(enum event_kind kind)
{
	end_drop();
	reserve();
	if (kineto_order && kind != pass_kind) {
		dropping = 1;
		drop_at = O.len;
		drop_first = first_event;
	}
	if (first_event) {
		PUTS("\n  {\n");
		first_event = 0;
	} else {
		PUTS(",\n  {\n");
	}
}

static inline void open_event(void) { open_event_of(CPU_OP_EVENT); }

static inline void ids(uint64_t pid, uint64_t tid)
{
	PUTS(", \"pid\": ");
	put_u64(pid);
	PUTS(", \"tid\": ");
	put_u64(tid);
}

static inline void times(uint64_t ts, uint64_t dur)
{
	PUTS(",\n    \"ts\": ");
	put_us3(ts);
	PUTS(", \"dur\": ");
	put_us3(dur);
}

static void x_head(const char *cat, const char *name, uint64_t pid, uint64_t tid, uint64_t ts, uint64_t dur)
{
	bool cpu = !strcmp(cat, "cpu_op") || !strcmp(cat, "python_function") || !strcmp(cat, "user_annotation");
	open_event_of(cpu ? CPU_OP_EVENT : ACTIVITY_EVENT);
	PUTS("    \"ph\": \"X\", \"cat\": \"");
	put_cstr(cat);
	PUTS("\", \"name\": \"");
	put_cstr(name);
	PUTS("\"");
	ids(pid, tid);
	times(ts, dur);
	n_spans++;
}

static void flow(char ph, uint64_t id, uint64_t pid, uint64_t tid, uint64_t ts)
{
	open_event_of(ACTIVITY_EVENT);
	PUTS("    \"ph\": \"");
	put(&ph, 1);
	PUTS("\", \"id\": ");
	put_u64(id);
	ids(pid, tid);
	PUTS(", \"ts\": ");
	put_us3(ts);
	PUTS(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
	if (ph == 'f')
		PUTS(", \"bp\": \"e\"");
	PUTS("\n  }");
	n_flows++;
}

static void cpu_op(struct rank *r, uint64_t tid, const char *name, const char *dims, const char *types,
		   uint64_t ts, uint64_t dur, uint64_t ext, int bwd)
{
	x_head("cpu_op", name, r->pid, tid, ts, dur);
	PUTS(",\n    \"args\": {\n      \"External id\": ");
	put_u64(ext);
	PUTS(", \"Record function id\": ");
	put_u64(r->rf_id++);
	if (dims) {
		PUTS(", \"Input Dims\": ");
		put_cstr(dims);
		PUTS(", \"Input type\": ");
		put_cstr(types);
	}
	if (bwd)
		PUTS(", \"Fwd thread id\": 1");
	PUTS(", \"Sequence number\": ");
	put_u64(r->seq);
	PUTS("\n    }\n  }");
}

static void user_annotation(struct rank *r, uint64_t tid, const char *name, uint64_t k, uint64_t ts, uint64_t dur)
{
	char nm[96];
	size_t n = strlen(name);
	memcpy(nm, name, n);
	char num[24];
	int i = 24;
	do {
		num[--i] = (char)('0' + k % 10);
		k /= 10;
	} while (k);
	memcpy(nm + n, num + i, (size_t)(24 - i));
	nm[n + (size_t)(24 - i)] = 0;
	x_head("user_annotation", nm, r->pid, tid, ts, dur);
	PUTS(",\n    \"args\": {\n      \"External id\": ");
	put_u64(next_ext++);
	PUTS(", \"Record function id\": 0, \"Ev Idx\": ");
	put_u64(r->rf_id++);
	PUTS("\n    }\n  }");
}

/* The compute stream waits for the side stream's work so far (an event
 * recorded there, cudaStreamWaitEvent on compute), as Kineto writes it: the
 * two runtime calls nested in the launch at ts (zero length, so they nest
 * whatever follows) and the cuda_sync marker on the compute stream. */
static void join_side_stream(struct rank *r, uint64_t tid, uint64_t ts)
{
	uint64_t rec = next_corr++, wait = next_corr++;
	x_head("cuda_runtime", "cudaEventRecord", r->pid, tid, ts, 0);
	PUTS(",\n    \"args\": {\"cbid\": 135, \"correlation\": ");
	put_u64(rec);
	PUTS("}\n  }");
	x_head("cuda_runtime", "cudaStreamWaitEvent", r->pid, tid, ts, 0);
	PUTS(",\n    \"args\": {\"cbid\": 147, \"correlation\": ");
	put_u64(wait);
	PUTS("}\n  }");
	x_head("cuda_sync", "Stream Wait Event", r->device, STREAMS[0], ts, 0);
	PUTS(",\n    \"args\": {\"cuda_sync_kind\": \"Stream Wait Event\", \"wait_on_stream\": ");
	put_u64(STREAMS[1]);
	PUTS(", \"wait_on_cuda_event_record_corr_id\": ");
	put_u64(rec);
	PUTS(", \"stream\": ");
	put_u64(STREAMS[0]);
	PUTS(", \"correlation\": ");
	put_u64(wait);
	PUTS(", \"device\": ");
	put_u64(r->device);
	PUTS("}\n  }");
}

/* A runtime call at [ts, ts+dur] and the GPU activity it starts, tied by an
 * ac2g flow: 4 events. kind 0 kernel, 1 memcpy, 2 memset. */
static void launch(struct rank *r, uint64_t tid, int kind, uint64_t ts, uint64_t dur, uint64_t ext, int nccl)
{
	uint64_t corr = next_corr++;
	uint32_t si = nccl ? 3 : kind == 1 ? 2 : chance(85) ? 0 : 1;
	uint64_t start = ts + dur / 2 + range(2000, 9000);
	/* with --repeat-steps drawn whether used or not: a slower kernel must not
	 * change the draws after it */
	uint64_t behind = step_seeds ? range(500, 3000) : 0;
	if (start < r->stream_free[si])
		start = r->stream_free[si] + (step_seeds ? behind : range(500, 3000));
	uint64_t gdur = kind == 0 ? (nccl ? range(50000, 2000000) : range(1500, 400000)) : range(1200, 60000);
	const char *kn = NULL;
	if (kind == 0) {
		kn = nccl ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
			  : KERNELS[below(NELEM(KERNELS))];
		if (slow_kernel && strstr(kn, slow_kernel))
			gdur += gdur * slow_pct / 100;
	}
	if (r->step == slow_step)
		gdur *= slow_factor; /* the device's work too */
	if (nccl) { /* the same draws on every rank: only the kernel's times move */
		start += nccl_delay;
		gdur += nccl_extend;
		nccl_delay = nccl_extend = 0;
	}
	r->stream_free[si] = start + gdur;
	uint32_t stream = STREAMS[si];

	static const char *const rt_names[] = { "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync" };
	static const unsigned cbids[] = { 211, 41, 51 };
	x_head("cuda_runtime", rt_names[kind], r->pid, tid, ts, dur);
	PUTS(",\n    \"args\": {\n      \"External id\": ");
	put_u64(ext);
	PUTS(", \"cbid\": ");
	put_u64(cbids[kind]);
	PUTS(", \"correlation\": ");
	put_u64(corr);
	PUTS("\n    }\n  }");
	flow('s', corr, r->pid, tid, ts);

	if (kind == 0) {
		x_head("kernel", kn, r->device, stream, start, gdur);
		uint64_t grid = nccl ? 2 : range(1, 4096), block = 32u << below(6);
		uint64_t regs = range(16, 255);
		uint64_t bps_milli = grid * 1000 / 132; /* H100/H200 SMs */
		PUTS(",\n    \"args\": {\n      \"External id\": ");
		put_u64(ext);
		PUTS(", \"queued\": 0, \"device\": ");
		put_u64(r->device);
		PUTS(", \"context\": 1, \"stream\": ");
		put_u64(stream);
		PUTS(", \"correlation\": ");
		put_u64(corr);
		PUTS(", \"registers per thread\": ");
		put_u64(regs);
		PUTS(", \"shared memory\": ");
		put_u64(below(4) * 16384);
		PUTS(", \"blocks per SM\": ");
		put_milli(bps_milli);
		PUTS(", \"warps per SM\": ");
		put_milli(bps_milli * (block / 32));
		PUTS(", \"grid\": [");
		put_u64(grid);
		PUTS(", 1, 1], \"block\": [");
		put_u64(block);
		PUTS(", 1, 1], \"est. achieved occupancy %\": ");
		put_u64(below(101));
		PUTS("\n    }\n  }");
	} else {
		uint64_t bytes = range(4, 1u << 26) & ~3ull;
		if (kind == 1)
			x_head("gpu_memcpy", MEMCPY_NAMES[below(NELEM(MEMCPY_NAMES))], r->device, stream, start, gdur);
		else
			x_head("gpu_memset", "Memset (Device)", r->device, stream, start, gdur);
		PUTS(",\n    \"args\": {\n      \"External id\": ");
		put_u64(ext);
		PUTS(", \"device\": ");
		put_u64(r->device);
		PUTS(", \"context\": 1, \"stream\": ");
		put_u64(stream);
		PUTS(", \"correlation\": ");
		put_u64(corr);
		PUTS(", \"bytes\": ");
		put_u64(bytes);
		PUTS(", \"memory bandwidth (GB/s)\": ");
		put_milli(bytes * 1000 / (gdur ? gdur : 1));
		PUTS("\n    }\n  }");
	}
	flow('f', corr, r->device, stream, start);
	if (sync_markers && si == 1)
		join_side_stream(r, tid, ts + dur / 2);
}

/* Leaf work inside [t0, t1]: one or two runtime calls, each with its GPU
 * activity, when the budget has room for all four events of a launch. */
static void leaf_launches(struct rank *r, uint64_t tid, uint64_t t0, uint64_t t1, uint64_t ext, int nccl)
{
	uint64_t span = t1 - t0;
	int n = chance(30) ? 2 : 1;
	for (int i = 0; i < n; i++) {
		uint64_t slot = span / (uint64_t)n, s0 = t0 + slot * (uint64_t)i;
		if (slot < 4000 || !take2(4, 2))
			return;
		uint64_t ts = s0 + slot / 8 + below(slot / 8), dur = slot / 2 + below(slot / 8);
		unsigned p = (unsigned)below(100);
		launch(r, tid, nccl ? 0 : p < 82 ? 0 : p < 94 ? 1 : 2, ts, dur, ext, nccl);
	}
}

/* An op over [t0, t1] with children split out of that interval. */
static void op_tree(struct rank *r, uint64_t tid, int depth, uint64_t t0, uint64_t t1, int bwd)
{
	if (!take(1))
		return;
	uint64_t ext = next_ext++;
	const char *name, *dims = NULL, *types = NULL;
	if (bwd) {
		name = depth == 0 ? BWD_OPS[below(NELEM(BWD_OPS))] : BWD_INNER[below(NELEM(BWD_INNER))];
	} else {
		const struct op *o = depth == 0 ? &FWD_OPS[below(NELEM(FWD_OPS))] : &INNER_OPS[below(NELEM(INNER_OPS))];
		name = o->name, dims = o->dims, types = o->types;
	}
	if (depth == 0)
		r->seq++;
	cpu_op(r, tid, name, dims, types, t0, t1 - t0, ext, bwd);

	uint64_t span = t1 - t0;
	if (depth < 3 && span > 30000 && chance(depth == 0 ? 85 : 45)) {
		uint64_t k = range(1, 3), slot = span / k;
		for (uint64_t i = 0; i < k; i++) {
			uint64_t s0 = t0 + i * slot, gap = slot / 16 + 1;
			op_tree(r, tid, depth + 1, s0 + below(gap) + 1, s0 + slot - below(gap) - 1, bwd);
		}
	} else if (chance(75)) {
		leaf_launches(r, tid, t0 + span / 10, t1 - span / 10, ext, 0);
	}
}

static void python_module(struct rank *r, uint64_t tid, uint64_t ts, uint64_t dur, uint64_t idx)
{
	char nm[64];
	const char *m = MODULES[idx % NELEM(MODULES)];
	int n = snprintf(nm, sizeof nm, "nn.Module: %s_%llu", m, (unsigned long long)idx);
	(void)n;
	x_head("python_function", nm, r->pid, tid, ts, dur);
	PUTS(",\n    \"args\": {\n      \"Python parent id\": ");
	put_u64(r->py_id);
	PUTS(", \"Python id\": ");
	put_u64(++r->py_id);
	PUTS(", \"Python thread\": 0");
	PUTS("\n    }\n  }");
}

/* Ops laid side by side over [t0, t1], each in its own slot. */
static void op_row(struct rank *r, uint64_t tid, uint64_t t0, uint64_t t1, uint64_t k, int bwd)
{
	uint64_t slot = (t1 - t0) / k;
	for (uint64_t i = 0; i < k && left; i++) {
		uint64_t s0 = t0 + i * slot, gap = slot / 10 + 1;
		op_tree(r, tid, 0, s0 + below(gap) + 1, s0 + slot - below(gap) - 1, bwd);
	}
}

static void step(struct rank *r)
{
	uint64_t t = r->t;
	if (step_seeds) {
		uint64_t sm = base_seed ^ 0x9e3779b97f4a7c15ull ^ ((uint64_t)r->device << 48);
		for (int i = 0; i < 4; i++)
			S[i] = splitmix(&sm);
	}
	uint64_t fwd = range(3000000, 9000000), bwd = fwd * 2;
	if (r->step == slow_step)
		fwd *= slow_factor;

	/* Forward: ProfilerStep#k > nn.Module blocks > aten ops. */
	if (take(1)) {
		user_annotation(r, r->tid_main, "ProfilerStep#", r->step, t, fwd);
		uint64_t blocks = range(4, 10), slot = fwd / blocks;
		for (uint64_t b = 0; b < blocks && left; b++) {
			uint64_t s0 = t + b * slot + range(1000, 5000), s1 = t + (b + 1) * slot - range(1000, 5000);
			if (!take(1))
				break;
			python_module(r, r->tid_main, s0, s1 - s0, r->step * 16 + b);
			op_row(r, r->tid_main, s0, s1, range(3, 8), 0);
		}
	}
	/* Data loading for the next step, alongside the forward pass. */
	if (take(1)) {
		uint64_t s0 = t + range(10000, 50000), d = fwd / 3;
		user_annotation(r, r->tid_load, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__#", r->step, s0, d);
		if (take(1)) {
			cpu_op(r, r->tid_load, "aten::pin_memory", "[[64, 512], []]", "[\"long int\", \"\"]", s0 + d / 4, d / 2, next_ext++, 0);
		}
	}
	/* Backward on the autograd thread; gradients all-reduced when ranks > 1. */
	uint64_t b0 = t + fwd + range(20000, 80000);
	/* the all-reduce follows the backward ops on that thread, never overlapping them */
	op_row(r, r->tid_bwd, b0, b0 + bwd - (nranks > 1 ? 450000 : 0), range(12, 30), 1);
	if (nranks > 1 && take(1)) {
		uint64_t ext = next_ext++, s0 = b0 + bwd - 400000, late = 0;
		if (strag_rank >= 0 && r->step == strag_step) {
			late = (int)r->device == strag_rank ? strag_delay : 0;
			nccl_delay = late;
			nccl_extend = strag_delay - late;
		}
		cpu_op(r, r->tid_bwd, "nccl:all_reduce", "[[25557032]]", "[\"float\"]", s0, 300000, ext, 1);
		leaf_launches(r, r->tid_bwd, s0 + 20000, s0 + 280000, ext, 1);
		nccl_delay = nccl_extend = 0;
	}
	/* Optimizer, then the host waits for the GPU. */
	uint64_t o0 = b0 + bwd + range(20000, 60000), od = range(300000, 900000);
	if (take(1)) {
		user_annotation(r, r->tid_main, "Optimizer.step#AdamW.step#", r->step, o0, od);
		op_row(r, r->tid_main, o0 + 5000, o0 + od - 5000, range(2, 5), 0);
	}
	uint64_t busy = o0 + od;
	for (int s = 0; s < NSTREAMS; s++)
		if (r->stream_free[s] > busy)
			busy = r->stream_free[s];
	uint64_t s0 = o0 + od + range(5000, 20000), s1 = busy + range(5000, 20000);
	if (s1 <= s0)
		s1 = s0 + range(2000, 8000);
	if (take(1)) {
		x_head("cuda_runtime", "cudaDeviceSynchronize", r->pid, r->tid_main, s0, s1 - s0);
		PUTS(",\n    \"args\": {\n      \"External id\": ");
		put_u64(next_ext++);
		PUTS(", \"cbid\": 165, \"correlation\": ");
		put_u64(next_corr++);
		PUTS("\n    }\n  }");
	}
	r->t = s1 + range(50000, 200000);
	r->step++;
}

static void meta(const char *what, uint64_t pid, uint64_t tid, uint64_t ts, const char *key, const char *sval, uint64_t nval)
{
	if (!take2(1, 0))
		return;
	open_event();
	PUTS("    \"name\": \"");
	put_cstr(what);
	PUTS("\", \"ph\": \"M\", \"ts\": ");
	put_us3(ts);
	ids(pid, tid);
	PUTS(",\n    \"args\": {\n      \"");
	put_cstr(key);
	PUTS("\": ");
	if (sval) {
		PUTS("\"");
		put_cstr(sval);
		PUTS("\"");
	} else {
		put_u64(nval);
	}
	PUTS("\n    }\n  }");
}

static void metadata(struct rank *rk, uint64_t ts)
{
	char buf[64];
	for (int i = 0; i < nrk; i++) {
		struct rank *r = &rk[i];
		meta("process_name", r->pid, 0, ts, "name", "python", 0);
		meta("process_sort_index", r->pid, 0, ts, "sort_index", NULL, (uint64_t)r->device * 2);
		uint64_t tids[3] = { r->tid_main, r->tid_bwd, r->tid_load };
		for (int k = 0; k < 3; k++) {
			snprintf(buf, sizeof buf, "thread %llu (python)", (unsigned long long)tids[k]);
			meta("thread_name", r->pid, tids[k], ts, "name", buf, 0);
			meta("thread_sort_index", r->pid, tids[k], ts, "sort_index", NULL, (uint64_t)k);
		}
		meta("process_name", r->device, 0, ts, "name", "python", 0);
		snprintf(buf, sizeof buf, "GPU %u", r->device);
		meta("process_labels", r->device, 0, ts, "labels", buf, 0);
		meta("process_sort_index", r->device, 0, ts, "sort_index", NULL, 5000000 + (uint64_t)r->device);
		for (int s = 0; s < NSTREAMS; s++) {
			if (s == 3 && nranks == 1)
				continue;
			snprintf(buf, sizeof buf, "stream %u", STREAMS[s]);
			meta("thread_name", r->device, STREAMS[s], ts, "name", buf, 0);
			meta("thread_sort_index", r->device, STREAMS[s], ts, "sort_index", NULL, STREAMS[s]);
		}
	}
}

static void header(int ranks)
{
	PUTS("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
	int ndev = ranks < 8 ? ranks : 8;
	for (int d = 0; d < ndev; d++) {
		PUTS(d ? ",\n    {\n" : "\n    {\n");
		PUTS("      \"id\": ");
		put_u64((uint64_t)d);
		PUTS(", \"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150754820096,\n"
		     "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
		     "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
		     "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
		     "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
		     "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }");
	}
	PUTS("\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	put_u64(only_rank >= 0 ? (uint64_t)only_rank : 0);
	PUTS(", \"world_size\": ");
	put_u64((uint64_t)ranks);
	PUTS("},\n  \"record_shapes\": 1,\n  \"with_stack\": 0,\n  \"traceEvents\": [");
}

static void trailer(uint64_t seed)
{
	end_drop();
	reserve();
	PUTS("\n  ],\n  \"traceName\": \"gen_trace_seed");
	put_u64(seed);
	PUTS(".pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1694128000000000000\n}\n");
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static uint64_t parse_u64(const char *opt, const char *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-')
		die("bad number for option", opt);
	return x;
}

/* Every event of the trace from the seed, with the metadata first. */
static void generate(struct rank *rk, uint64_t events, uint64_t seed)
{
	uint64_t sm = seed;
	for (int i = 0; i < 4; i++)
		S[i] = splitmix(&sm);
	next_corr = 1000, next_ext = 1, nccl_delay = nccl_extend = 0;
	memset(rk, 0, (size_t)nrk * sizeof *rk);
	uint64_t t0 = 1694128201545123456ull + below(1000000000);
	for (int i = 0; i < nrk; i++) {
		struct rank *r = &rk[i];
		int id = only_rank >= 0 ? only_rank : i; /* its ids; its draws are every rank's */
		r->pid = 59811 + (uint64_t)id * 173;
		r->tid_main = r->pid;
		r->tid_bwd = r->pid + 165;
		r->tid_load = r->pid + 171;
		r->device = (uint32_t)id;
		r->t = t0 + below(200000);
		r->step = 1;
		r->seq = 100;
	}
	left = events;
	metadata(rk, t0 - 1000000);
	while (left)
		for (int i = 0; i < nrk && left; i++)
			step(&rk[i]);
	if (wrapper) {
		/* over everything, beginning before the first step */
		uint64_t end = 0;
		for (int i = 0; i < nrk; i++)
			end = rk[i].t > end ? rk[i].t : end;
		x_head("user_annotation", "wrapper", rk[0].pid, rk[0].pid + 200, t0 - 1000, end - t0 + 2000);
		PUTS("\n  }");
		n_events++;
	}
}

static void usage(void)
{
	fputs("usage: gen_trace --events N|--spans N --seed S [--ranks N [--rank R [--straggler R:DELAY[:STEP]]]] [--level L]\n"
	      "                 [-o FILE.json|.json.gz|.json.zst]\n"
	      "                 [--repeat-steps] [--slow-kernel SUBSTRING:PCT] [--slow-step K:FACTOR] [--wrapper]\n"
	      "                 [--sync-markers] [--zstd-frame MB] [--kineto-order]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t events = 0, seed = 1, level = 0;
	int have_events = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc && strcmp(a, "--repeat-steps") && strcmp(a, "--wrapper") && strcmp(a, "--sync-markers") &&
		    strcmp(a, "--kineto-order"))
			usage();
		const char *v = argv[++i];
		if (!strcmp(a, "--events"))
			events = parse_u64(a, v), have_events = 1, budget_spans = 0;
		else if (!strcmp(a, "--spans"))
			events = parse_u64(a, v), have_events = 1, budget_spans = 1;
		else if (!strcmp(a, "--seed"))
			seed = parse_u64(a, v);
		else if (!strcmp(a, "--ranks"))
			nranks = (int)parse_u64(a, v);
		else if (!strcmp(a, "--rank"))
			only_rank = (int)parse_u64(a, v);
		else if (!strcmp(a, "--straggler")) {
			/* R:DELAY[:STEP], DELAY in ns */
			char *end;
			unsigned long long x = strtoull(v, &end, 10), d = 0, k = 2;
			if (end == v || *end != ':')
				die("bad --straggler (R:DELAY[:STEP]):", v);
			char *p = end + 1;
			d = strtoull(p, &end, 10);
			if (end == p || (*end && *end != ':'))
				die("bad --straggler (R:DELAY[:STEP]):", v);
			if (*end) {
				p = end + 1;
				k = strtoull(p, &end, 10);
				if (end == p || *end || k < 1)
					die("bad --straggler (R:DELAY[:STEP]):", v);
			}
			strag_rank = (int)x, strag_delay = d, strag_step = k;
		} else if (!strcmp(a, "--level"))
			level = parse_u64(a, v);
		else if (!strcmp(a, "--zstd-frame"))
			O.frame_cap = parse_u64(a, v) << 20;
		else if (!strcmp(a, "-o"))
			path = v;
		else if (!strcmp(a, "--sync-markers"))
			sync_markers = 1, i--; /* a flag */
		else if (!strcmp(a, "--kineto-order"))
			kineto_order = 1, i--;
		else if (!strcmp(a, "--repeat-steps"))
			step_seeds = 1, i--; /* a flag */
		else if (!strcmp(a, "--wrapper"))
			wrapper = step_seeds = 1, i--;
		else if (!strcmp(a, "--slow-kernel")) {
			const char *colon = strrchr(v, ':');
			if (!colon || colon == v)
				die("expected SUBSTRING:PCT for", a);
			slow_pct = parse_u64(a, colon + 1);
			slow_kernel = strndup(v, (size_t)(colon - v));
			step_seeds = 1;
		} else if (!strcmp(a, "--slow-step")) {
			const char *colon = strchr(v, ':');
			if (!colon)
				die("expected K:FACTOR for", a);
			char k[32];
			if ((size_t)(colon - v) >= sizeof k)
				die("bad step number for option", a);
			memcpy(k, v, (size_t)(colon - v));
			k[colon - v] = 0;
			slow_step = parse_u64(a, k);
			slow_factor = parse_u64(a, colon + 1);
			step_seeds = 1;
		}
		else
			usage();
	}
	if (!have_events || nranks < 1 || nranks > MAX_RANKS || only_rank >= nranks ||
	    (strag_rank >= 0 && (only_rank < 0 || strag_rank >= nranks)))
		usage(); /* --straggler needs --rank: every rank's file is drawn alike */
	nrk = only_rank >= 0 ? 1 : nranks;

	O.kind = SINK_PLAIN;
	O.f = stdout;
	char *tmp_path = NULL;
	if (path && strcmp(path, "-")) {
		if (ends_with(path, ".gz"))
			O.kind = SINK_GZIP;
		else if (ends_with(path, ".zst"))
			O.kind = SINK_ZSTD;
		/* Written beside the target and renamed at the end: no partial file. */
		tmp_path = malloc(strlen(path) + 8);
		if (!tmp_path)
			die("out of memory for", path);
		sprintf(tmp_path, "%s.tmp~", path);
		O.f = fopen(tmp_path, "wb");
		if (!O.f)
			die("cannot create", tmp_path);
	}
	O.buf = malloc(OUT_CAP);
	O.zcap = 1u << 20;
	O.zbuf = malloc(O.zcap);
	if (!O.buf || !O.zbuf)
		die("out of memory for", "buffers");
	if (O.frame_cap && O.kind != SINK_ZSTD)
		die("--zstd-frame needs a .zst output, not", path ? path : "-");
	if (O.kind == SINK_GZIP) {
		if (deflateInit2(&O.z, level ? (int)level : 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			die("cannot start", "zlib");
	} else if (O.kind == SINK_ZSTD) {
		O.zc = ZSTD_createCCtx();
		if (!O.zc)
			die("cannot start", "zstd");
		ZSTD_CCtx_setParameter(O.zc, ZSTD_c_compressionLevel, level ? (int)level : 3);
		ZSTD_CCtx_setParameter(O.zc, ZSTD_c_nbWorkers, 2); /* ignored by single-threaded builds */
	}

	base_seed = seed;
	struct rank *rk = calloc((size_t)nrk, sizeof *rk);
	if (!rk)
		die("out of memory for", "ranks");
	header(nranks);
	generate(rk, events, seed);
	if (kineto_order) { /* the same draws again, the activities written this time */
		uint64_t counted[3] = {n_events, n_spans, n_flows};
		pass_kind = ACTIVITY_EVENT;
		generate(rk, events, seed);
		n_events = counted[0], n_spans = counted[1], n_flows = counted[2];
	}
	trailer(seed);
	flush_out(1);

	if (O.kind == SINK_GZIP)
		deflateEnd(&O.z);
	else if (O.kind == SINK_ZSTD)
		ZSTD_freeCCtx(O.zc);
	if (fflush(O.f) || O.failed || (tmp_path && fclose(O.f))) {
		if (tmp_path)
			remove(tmp_path);
		die("write failed for", path ? path : "stdout");
	}
	if (tmp_path && rename(tmp_path, path)) {
		remove(tmp_path);
		die("cannot rename onto", path);
	}
	fprintf(stderr, "{\"events\": %llu, \"spans\": %llu, \"flows\": %llu, \"bytes\": %llu, \"ranks\": %d, \"seed\": %llu}\n",
		(unsigned long long)n_events, (unsigned long long)n_spans, (unsigned long long)n_flows,
		(unsigned long long)O.bytes, nranks, (unsigned long long)seed);
	free(rk);
	free(O.buf);
	free(O.zbuf);
	free(tmp_path);
	return 0;
}
