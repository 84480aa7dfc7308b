/* A structure-aware trace generator for the fuzz harnesses (included by
 * fuzz_causal.c and fuzz_overlay.c; static functions only): bytes become a
 * valid-looking Kineto-like trace, so that the fuzzer's mutations move
 * through causal graphs instead of stopping at the JSON reader.
 *
 * The first byte is a header: bit 0 the object format ({"traceEvents":
 * [...], ...} with Kineto's top-level keys) or the array format, bits 1-2
 * the CPU threads (1-3, one with 0 or 3), bits 3-4 the GPU streams (1-3),
 * bit 5 string tids for the streams ("stream 7"), bit 6 v2 flows
 * (bind_id/flow_out/flow_in) where the rest would give v1 ones (ac2g s/f),
 * bit 7 B/E pairs where the rest would give X spans. Then one opcode a
 * byte (its low 4 bits; the high ones are its argument), each with up to
 * three more argument bytes:
 *   leaf   a cpu_op X on the current thread, then the thread's time moves on
 *   open / close   a span enclosing what follows on the thread (B/E, or an
 *          X written when it closes), up to 8 deep; the rest close at the end
 *   launch cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync and its
 *          kernel, gpu_memcpy or gpu_memset on a stream, after the stream's
 *          last one and a launch latency (sometimes before the launch: a
 *          backward flow), joined by a flow (sometimes none, or an f of an
 *          unknown id)
 *   sync   cudaDeviceSynchronize, cudaStreamSynchronize or cudaEventSynchronize
 *          until the streams' last end (sometimes short of it)
 *   step   ProfilerStep#N on the current thread: opens one, or closes it
 *   thread switch to another CPU thread, its time near the one left
 *   idle   time moves on
 *   noise  an instant, a counter, a thread_name, a zero-length span, args
 *          that are not an object, a name with escapes, UTF-8 or invalid UTF-8
 *   cross  a flow between two CPU threads
 *   rogue  a kernel straight on a stream (NCCL-like), overlapping its last
 *   back   the thread's time moves back (overlaps, spans out of file order)
 * Times are integer nanoseconds written as microseconds with 3 decimals. */
#ifndef FUZZ_KINETO_GEN_H
#define FUZZ_KINETO_GEN_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KG_THREADS 3
#define KG_STREAMS 3
#define KG_DEPTH 8
#define KG_MAX_OPS 1500

typedef struct kg_open {
	int64_t ts;
	char name[40];
	const char *cat;
	bool be;   /* a B was written: close with an E */
	bool step; /* a ProfilerStep */
} kg_open;

typedef struct kg {
	const uint8_t *p;
	size_t n, i;
	char *buf;
	size_t len, cap;
	bool comma, oom;
	uint8_t hdr;
	int threads, streams;
	int t;                         /* current CPU thread */
	int64_t now[KG_THREADS];       /* per CPU thread */
	int64_t stream_end[KG_STREAMS];
	kg_open open[KG_THREADS][KG_DEPTH];
	int depth[KG_THREADS];
	uint64_t flow_id;
	unsigned step;
} kg;

static uint8_t kg_byte(kg *g)
{
	return g->i < g->n ? g->p[g->i++] : 0;
}

static void kg_printf(kg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kg_printf(kg *g, const char *fmt, ...)
{
	if (g->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(g->buf + g->len, g->cap - g->len, fmt, ap);
		va_end(ap);
		if (k < 0) {
			g->oom = true;
			return;
		}
		if ((size_t)k < g->cap - g->len) {
			g->len += (size_t)k;
			return;
		}
		size_t cap = g->cap * 2 + (size_t)k + 64;
		char *b = realloc(g->buf, cap);
		if (!b) {
			g->oom = true;
			return;
		}
		g->buf = b;
		g->cap = cap;
	}
}

/* "12.345" from ns (negative times stay negative) */
static const char *kg_us(char *out, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(out, 32, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
	return out;
}

static void kg_begin_event(kg *g)
{
	kg_printf(g, "%s\n{", g->comma ? "," : "");
	g->comma = true;
}

enum { KG_CPU_PID = 4242, KG_GPU_PID = 0 };

static void kg_where_cpu(kg *g, int t)
{
	kg_printf(g, "\"pid\":%d,\"tid\":%d", KG_CPU_PID, KG_CPU_PID + t);
}

static void kg_where_gpu(kg *g, int s)
{
	if (g->hdr & 32)
		kg_printf(g, "\"pid\":%d,\"tid\":\"stream %d\"", KG_GPU_PID, 7 + s);
	else
		kg_printf(g, "\"pid\":%d,\"tid\":%d", KG_GPU_PID, 7 + s);
}

/* An X on a CPU thread (s < 0) or a stream; extra: more members or "". */
static void kg_x(kg *g, int t, int s, const char *name, const char *cat, int64_t ts, int64_t dur, const char *extra)
{
	char a[32], b[32];
	kg_begin_event(g);
	kg_printf(g, "\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",", cat, name);
	if (s < 0)
		kg_where_cpu(g, t);
	else
		kg_where_gpu(g, s);
	kg_printf(g, ",\"ts\":%s,\"dur\":%s%s}", kg_us(a, ts), kg_us(b, dur), extra);
}

static void kg_flow_point(kg *g, char ph, int t, int s, int64_t ts, uint64_t id, const char *cat)
{
	char a[32];
	kg_begin_event(g);
	kg_printf(g, "\"ph\":\"%c\",\"id\":%" PRIu64 ",\"cat\":\"%s\",\"name\":\"%s\",", ph, id, cat, cat);
	if (s < 0)
		kg_where_cpu(g, t);
	else
		kg_where_gpu(g, s);
	kg_printf(g, ",\"ts\":%s%s}", kg_us(a, ts), ph == 'f' ? ",\"bp\":\"e\"" : "");
}

static const char *const kg_ops[] = {"aten::mm", "aten::add_", "aten::copy_", "aten::linear", "aten::relu",
				     "aten::empty", "aten::to", "autograd::engine::evaluate_function"};
static const char *const kg_odd_names[] = {"a\\\"q", "caf\\u00e9", "\xe5\x90\x8d\xe5\x89\x8d", "tab\\tnew\\nline",
					   "", "ProfilerStep#x", "cudaDeviceSynchronize", "back\\\\slash\xff\xf0\x9f\x98"};

static int64_t kg_gap(kg *g, uint8_t arg)
{
	/* mostly small, sometimes zero (equal times), sometimes long */
	switch (arg & 3) {
	case 0: return 0;
	case 1: return 1 + (arg >> 2);
	case 2: return 100 * (int64_t)(1 + (arg >> 2));
	default: return 10000 * (int64_t)(1 + (arg >> 2));
	}
}

static void kg_close(kg *g, int t)
{
	if (!g->depth[t])
		return;
	kg_open *o = &g->open[t][--g->depth[t]];
	int64_t end = g->now[t] > o->ts ? g->now[t] : o->ts;
	if (o->be) {
		char a[32];
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"E\",");
		kg_where_cpu(g, t);
		kg_printf(g, ",\"ts\":%s}", kg_us(a, end));
	} else {
		kg_x(g, t, -1, o->name, o->cat, o->ts, end - o->ts, "");
	}
	g->now[t] = end;
}

static void kg_open_span(kg *g, int t, const char *name, const char *cat, bool step)
{
	if (g->depth[t] == KG_DEPTH)
		kg_close(g, t);
	kg_open *o = &g->open[t][g->depth[t]++];
	*o = (kg_open){.ts = g->now[t], .cat = cat, .be = (g->hdr & 128) != 0, .step = step};
	snprintf(o->name, sizeof o->name, "%s", name);
	if (o->be) {
		char a[32];
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"B\",\"cat\":\"%s\",\"name\":\"%s\",", cat, o->name);
		kg_where_cpu(g, t);
		kg_printf(g, ",\"ts\":%s}", kg_us(a, o->ts));
	}
}

static void kg_launch(kg *g, uint8_t arg)
{
	static const char *const rt[] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaLaunchKernel"};
	static const char *const dev[] = {"kernel", "gpu_memcpy", "gpu_memset", "kernel"};
	static const char *const kname[] = {"volta_sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)",
					    "Memset (Device)", "void at::native::elementwise_kernel<128, 4>"};
	int t = g->t, s = (arg >> 2) % g->streams, k = arg & 3;
	uint8_t a1 = kg_byte(g), a2 = kg_byte(g);
	int64_t ts = g->now[t], dur = 1 + kg_gap(g, a1);
	int64_t start = ts + kg_gap(g, a2);
	if (start < g->stream_end[s])
		start = g->stream_end[s];
	if ((a2 & 0xf0) == 0xf0) /* the kernel before its launch: a backward flow */
		start = ts - 1 - (a2 & 15);
	int64_t kdur = kg_gap(g, (uint8_t)(a1 ^ a2)) + (a1 & 1);
	uint64_t id = ++g->flow_id;
	int how = a1 >> 6; /* 0..2 a flow, 3 none or a stray f */
	bool v2 = (g->hdr & 64) && how != 3;
	char extra[96] = "";
	if (v2)
		snprintf(extra, sizeof extra, ",\"bind_id\":%" PRIu64 ",\"flow_out\":true", id);
	kg_x(g, t, -1, rt[k], "cuda_runtime", ts, dur, extra);
	if (!v2 && how != 3)
		kg_flow_point(g, 's', t, -1, ts + (how == 1 ? dur / 2 : 0), id, "ac2g");
	if (v2)
		snprintf(extra, sizeof extra, ",\"bind_id\":%" PRIu64 ",\"flow_in\":true,\"args\":{\"stream\":%d}", id,
			 7 + s);
	else
		snprintf(extra, sizeof extra, ",\"args\":{\"External id\":%" PRIu64 ",\"stream\":%d}", id, 7 + s);
	kg_x(g, 0, s, kname[k], dev[k], start, kdur, extra);
	if (!v2 && (how != 3 || (a1 & 2)))
		kg_flow_point(g, 'f', 0, s, start, how == 3 ? id + 1000000 : id, "ac2g");
	if (start + kdur > g->stream_end[s])
		g->stream_end[s] = start + kdur;
	g->now[t] = ts + dur + kg_gap(g, (uint8_t)(a1 >> 2));
}

static void kg_sync(kg *g, uint8_t arg)
{
	static const char *const names[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
					    "cudaMemcpy"};
	int t = g->t, s = (arg >> 2) % g->streams;
	int64_t until = g->stream_end[s];
	if ((arg & 3) == 0)
		for (int i = 0; i < g->streams; i++)
			if (g->stream_end[i] > until)
				until = g->stream_end[i];
	uint8_t a = kg_byte(g);
	if (a & 1) /* short of it: this wait waits for nothing in the end */
		until -= kg_gap(g, a);
	else
		until += kg_gap(g, a);
	int64_t ts = g->now[t];
	if (until < ts)
		until = ts;
	kg_x(g, t, -1, names[arg & 3], "cuda_runtime", ts, until - ts, "");
	g->now[t] = until + kg_gap(g, (uint8_t)(a >> 3));
}

static void kg_noise(kg *g, uint8_t arg)
{
	char a[32];
	int t = g->t;
	uint8_t b = kg_byte(g);
	switch (arg & 7) {
	case 0:
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\",\"cat\":\"cpu_instant_event\",");
		kg_where_cpu(g, t);
		kg_printf(g, ",\"ts\":%s}", kg_us(a, g->now[t]));
		break;
	case 1:
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"C\",\"name\":\"[memory]\",\"pid\":%d,\"ts\":%s,\"args\":{\"Total Allocated\":%u}}",
			  KG_CPU_PID, kg_us(a, g->now[t]), b);
		break;
	case 2:
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"M\",\"name\":\"thread_name\",");
		kg_where_cpu(g, t);
		kg_printf(g, ",\"args\":{\"name\":\"thread %d (python)\"}}", t);
		break;
	case 3:
		kg_x(g, t, -1, kg_ops[b & 7], "cpu_op", g->now[t], 0, "");
		break;
	case 4:
		kg_x(g, t, -1, kg_ops[b & 7], "cpu_op", g->now[t], 1 + kg_gap(g, b),
		     (b & 8) ? ",\"args\":7" : ",\"args\":[1,{\"args\":{}}]");
		g->now[t] += 1 + kg_gap(g, b);
		break;
	case 5:
		kg_x(g, t, -1, kg_odd_names[b & 7], (b & 8) ? "user_annotation" : "python_function", g->now[t],
		     1 + kg_gap(g, b), ",\"args\":{\"Python id\":1,\"note\":\"x\\u0001y\"}");
		g->now[t] += 1 + kg_gap(g, b);
		break;
	case 6: /* an async span: it takes no part, but is copied and read */
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"b\",\"id\":%u,\"cat\":\"async\",\"name\":\"req\",\"pid\":%d,\"ts\":%s}", b,
			  KG_CPU_PID, kg_us(a, g->now[t]));
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"e\",\"id\":%u,\"cat\":\"async\",\"name\":\"req\",\"pid\":%d,\"ts\":%s}", b,
			  KG_CPU_PID, kg_us(a, g->now[t] + kg_gap(g, b)));
		break;
	default:
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"python3\"}}",
			  KG_CPU_PID);
		break;
	}
}

static void kg_cross(kg *g, uint8_t arg)
{
	int from = g->t, to = (int)((arg >> 4) % g->threads);
	uint8_t a = kg_byte(g);
	int64_t ts = g->now[from], dur = 1 + kg_gap(g, a);
	uint64_t id = ++g->flow_id;
	kg_x(g, from, -1, "aten::mm", "cpu_op", ts, dur, "");
	kg_flow_point(g, 's', from, -1, ts + dur / 2, id, "fwdbwd");
	int64_t at = g->now[to];
	if (at < ts && !(a & 1))
		at = ts + dur;
	kg_x(g, to, -1, "autograd::engine::evaluate_function", "cpu_op", at, 1 + kg_gap(g, (uint8_t)(a >> 1)), "");
	kg_flow_point(g, 'f', to, -1, at, id, "fwdbwd");
	g->now[from] = ts + dur;
	if (to != from)
		g->now[to] = at + 1 + kg_gap(g, (uint8_t)(a >> 1));
}

static void kg_header(kg *g)
{
	if (g->hdr & 1)
		kg_printf(g, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\"}],"
			  "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":1},"
			  "\"traceEvents\":[");
	else
		kg_printf(g, "[");
	kg_begin_event(g);
	kg_printf(g, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"python3\"}}", KG_CPU_PID);
	kg_begin_event(g);
	kg_printf(g, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"GPU 0\"}}", KG_GPU_PID);
	for (int s = 0; s < g->streams; s++) {
		kg_begin_event(g);
		kg_printf(g, "\"ph\":\"M\",\"name\":\"thread_name\",");
		kg_where_gpu(g, s);
		kg_printf(g, ",\"args\":{\"name\":\"stream %d\"}}", 7 + s);
	}
}

/* The trace of p[0..n): a malloc'ed NUL-terminated JSON text (*len bytes),
 * or NULL when out of memory. */
static char *kg_generate(const uint8_t *p, size_t n, size_t *len)
{
	kg *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->p = p;
	g->n = n;
	g->cap = 4096;
	g->buf = malloc(g->cap);
	if (!g->buf) {
		free(g);
		return NULL;
	}
	g->hdr = kg_byte(g);
	g->threads = 1 + ((g->hdr >> 1) & 3) % 3;
	g->streams = 1 + ((g->hdr >> 3) & 3) % 3;
	for (int t = 0; t < g->threads; t++)
		g->now[t] = 1000000 + 10 * t;
	kg_header(g);
	for (int ops = 0; g->i < g->n && ops < KG_MAX_OPS && !g->oom; ops++) {
		uint8_t op = kg_byte(g), arg = op >> 4;
		int t = g->t;
		switch (op & 15) {
		case 0:
		case 1: {
			uint8_t a = kg_byte(g);
			int64_t dur = kg_gap(g, a) + (op & 1);
			kg_x(g, t, -1, kg_ops[arg & 7], "cpu_op", g->now[t], dur, "");
			g->now[t] += dur + kg_gap(g, (uint8_t)(arg >> 1));
			break;
		}
		case 2:
			kg_open_span(g, t, kg_ops[arg & 7], (arg & 8) ? "user_annotation" : "cpu_op", false);
			g->now[t] += kg_gap(g, arg);
			break;
		case 3:
			g->now[t] += kg_gap(g, arg);
			kg_close(g, t);
			break;
		case 4:
		case 5:
			kg_launch(g, arg);
			break;
		case 6:
			kg_sync(g, arg);
			break;
		case 7: {
			int d = g->depth[t];
			while (d > 0 && !g->open[t][d - 1].step)
				d--;
			if (d > 0) { /* close the step and what it holds */
				g->now[t] += kg_gap(g, arg);
				while (g->depth[t] >= d)
					kg_close(g, t);
			} else {
				char name[24];
				snprintf(name, sizeof name, "ProfilerStep#%u", ++g->step);
				kg_open_span(g, t, name, "user_annotation", true);
			}
			break;
		}
		case 8: {
			int to = (int)(arg % g->threads);
			if (to != t && (arg & 4) && g->now[to] < g->now[t])
				g->now[to] = g->now[t] - kg_gap(g, (uint8_t)(arg >> 1));
			g->t = to;
			break;
		}
		case 9:
			g->now[t] += kg_gap(g, (uint8_t)(arg << 4 | kg_byte(g) >> 4)) * 10;
			break;
		case 10:
			kg_noise(g, arg);
			break;
		case 11:
			kg_cross(g, arg);
			break;
		case 12: {
			int s = arg % g->streams;
			uint8_t a = kg_byte(g);
			int64_t start = g->stream_end[s] - kg_gap(g, a);
			if (start < 0)
				start = 0;
			kg_x(g, 0, s, "ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", start, 1 + kg_gap(g, (uint8_t)(a >> 2)),
			     "");
			if (start + 1 + kg_gap(g, (uint8_t)(a >> 2)) > g->stream_end[s])
				g->stream_end[s] = start + 1 + kg_gap(g, (uint8_t)(a >> 2));
			break;
		}
		case 13:
			g->now[t] -= kg_gap(g, arg);
			if (g->now[t] < 0)
				g->now[t] = 0;
			break;
		case 14: /* the step of another thread, or a span around the rest */
			kg_open_span(g, t, (arg & 1) ? "ProfilerStep#0" : "## forward ##", "user_annotation", false);
			break;
		default:
			g->now[t] += 1 + arg;
			break;
		}
	}
	for (int t = 0; t < g->threads; t++)
		while (g->depth[t])
			kg_close(g, t);
	kg_printf(g, "\n]%s\n", (g->hdr & 1) ? ",\"displayTimeUnit\":\"ms\",\"traceName\":\"fuzz\"}" : "");
	char *out = g->oom ? NULL : g->buf;
	if (g->oom)
		free(g->buf);
	*len = g->len;
	free(g);
	return out;
}

/* GT_FUZZ_TRACE=FILE: also writes the generated trace there (how
 * fuzz/artifact-to-regress turns a generated input into a file). */
static void kg_dump(const char *text, size_t len)
{
	const char *path = getenv("GT_FUZZ_TRACE");
	if (!path)
		return;
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0)
		abort();
}

#endif
