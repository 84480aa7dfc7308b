/* The OpenCL runtime (see cl.h): device enumeration and choice,
 * context and profiling queue, and programs built from the embedded kernel
 * sources with an on-disk binary cache. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cl.h"
#include "kept_buffers.h"
#include "base/base.h"

struct gt_kernel_source {
	const char *name;
	const char *text;
};
extern const struct gt_kernel_source gt_kernel_sources[];

const char *gt_cl_error_name(cl_int code)
{
	switch (code) {
	case 0: return "CL_SUCCESS";
	case  -1: return "CL_DEVICE_NOT_FOUND";
	case  -2: return "CL_DEVICE_NOT_AVAILABLE";
	case  -3: return "CL_COMPILER_NOT_AVAILABLE";
	case  -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
	case  -5: return "CL_OUT_OF_RESOURCES";
	case  -6: return "CL_OUT_OF_HOST_MEMORY";
	case  -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
	case  -8: return "CL_MEM_COPY_OVERLAP";
	case  -9: return "CL_IMAGE_FORMAT_MISMATCH";
	case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
	case -11: return "CL_BUILD_PROGRAM_FAILURE";
	case -12: return "CL_MAP_FAILURE";
	case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
	case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
	case -15: return "CL_COMPILE_PROGRAM_FAILURE";
	case -16: return "CL_LINKER_NOT_AVAILABLE";
	case -17: return "CL_LINK_PROGRAM_FAILURE";
	case -18: return "CL_DEVICE_PARTITION_FAILED";
	case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
	case -30: return "CL_INVALID_VALUE";
	case -31: return "CL_INVALID_DEVICE_TYPE";
	case -32: return "CL_INVALID_PLATFORM";
	case -33: return "CL_INVALID_DEVICE";
	case -34: return "CL_INVALID_CONTEXT";
	case -35: return "CL_INVALID_QUEUE_PROPERTIES";
	case -36: return "CL_INVALID_COMMAND_QUEUE";
	case -37: return "CL_INVALID_HOST_PTR";
	case -38: return "CL_INVALID_MEM_OBJECT";
	case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
	case -40: return "CL_INVALID_IMAGE_SIZE";
	case -41: return "CL_INVALID_SAMPLER";
	case -42: return "CL_INVALID_BINARY";
	case -43: return "CL_INVALID_BUILD_OPTIONS";
	case -44: return "CL_INVALID_PROGRAM";
	case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
	case -46: return "CL_INVALID_KERNEL_NAME";
	case -47: return "CL_INVALID_KERNEL_DEFINITION";
	case -48: return "CL_INVALID_KERNEL";
	case -49: return "CL_INVALID_ARG_INDEX";
	case -50: return "CL_INVALID_ARG_VALUE";
	case -51: return "CL_INVALID_ARG_SIZE";
	case -52: return "CL_INVALID_KERNEL_ARGS";
	case -53: return "CL_INVALID_WORK_DIMENSION";
	case -54: return "CL_INVALID_WORK_GROUP_SIZE";
	case -55: return "CL_INVALID_WORK_ITEM_SIZE";
	case -56: return "CL_INVALID_GLOBAL_OFFSET";
	case -57: return "CL_INVALID_EVENT_WAIT_LIST";
	case -58: return "CL_INVALID_EVENT";
	case -59: return "CL_INVALID_OPERATION";
	case -60: return "CL_INVALID_GL_OBJECT";
	case -61: return "CL_INVALID_BUFFER_SIZE";
	case -62: return "CL_INVALID_MIP_LEVEL";
	case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
	case -64: return "CL_INVALID_PROPERTY";
	case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
	case -66: return "CL_INVALID_COMPILER_OPTIONS";
	case -67: return "CL_INVALID_LINKER_OPTIONS";
	case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
	case -69: return "CL_INVALID_PIPE_SIZE";
	case -70: return "CL_INVALID_DEVICE_QUEUE";
	case -71: return "CL_INVALID_SPEC_ID";
	case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
	case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
	}
	return "CL_UNKNOWN_ERROR";
}

#define MAX_PROGRAMS 16
#define BUILD_OPTIONS "-cl-std=CL1.2"

struct gt_cl {
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;
	char platform_name[256];
	char device_name[256];
	char device_version[256];
	char driver_version[256];
	uint64_t max_alloc, global_mem;
	size_t max_work_group;
	unsigned compute_units;
	struct {
		const char *name;
		cl_program program;
	} programs[MAX_PROGRAMS];
	int nprograms;
	bool last_from_cache;
	pthread_mutex_t programs_lock; /* steps on two threads share the programs */
	kept_buffers kept;
};

/* --- enumeration ------------------------------------------------------- */

struct found_device {
	cl_platform_id platform;
	cl_device_id device;
};

static int query_string(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
	buf[0] = '\0';
	cl_int rc = clGetDeviceInfo(d, what, len, buf, NULL);
	buf[len - 1] = '\0';
	return rc;
}

/* Lists every device of every platform in loader order (the index that
 * `gputrace devices` prints). No platform at all is not an error. */
static int enumerate(struct found_device **out, size_t *count, gt_error *err)
{
	*out = NULL;
	*count = 0;
	cl_uint np = 0;
	cl_int rc = clGetPlatformIDs(0, NULL, &np);
	if (rc == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (rc == CL_SUCCESS && np == 0))
		return 0;
	if (rc != CL_SUCCESS)
		return gt_fail(err, GT_EDEVICE, "clGetPlatformIDs failed: %s", gt_cl_error_name(rc));
	cl_platform_id *plats = gt_fault_hit("alloc") ? NULL : calloc(np, sizeof *plats);
	if (!plats)
		return gt_fail(err, GT_EDEVICE, "out of memory listing OpenCL platforms");
	rc = clGetPlatformIDs(np, plats, NULL);
	if (rc != CL_SUCCESS) {
		free(plats);
		return gt_fail(err, GT_EDEVICE, "clGetPlatformIDs failed: %s", gt_cl_error_name(rc));
	}
	struct found_device *devs = NULL;
	size_t n = 0;
	for (cl_uint p = 0; p < np; p++) {
		cl_uint nd = 0;
		rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
		if (rc == CL_DEVICE_NOT_FOUND || nd == 0)
			continue;
		if (rc != CL_SUCCESS) {
			free(plats);
			free(devs);
			return gt_fail(err, GT_EDEVICE, "clGetDeviceIDs failed: %s", gt_cl_error_name(rc));
		}
		cl_device_id *ids = gt_fault_hit("alloc") ? NULL : calloc(nd, sizeof *ids);
		struct found_device *grown = gt_fault_hit("alloc") ? NULL : realloc(devs, (n + nd) * sizeof *devs);
		if (!ids || !grown) {
			free(ids);
			free(plats);
			free(grown ? grown : devs);
			return gt_fail(err, GT_EDEVICE, "out of memory listing OpenCL devices");
		}
		devs = grown;
		rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL);
		if (rc != CL_SUCCESS) {
			free(ids);
			free(plats);
			free(devs);
			return gt_fail(err, GT_EDEVICE, "clGetDeviceIDs failed: %s", gt_cl_error_name(rc));
		}
		for (cl_uint d = 0; d < nd; d++) {
			devs[n].platform = plats[p];
			devs[n].device = ids[d];
			n++;
		}
		free(ids);
	}
	free(plats);
	*out = devs;
	*count = n;
	return 0;
}

static const char *type_name(cl_device_type t)
{
	if (t & CL_DEVICE_TYPE_GPU)
		return "gpu";
	if (t & CL_DEVICE_TYPE_CPU)
		return "cpu";
	if (t & CL_DEVICE_TYPE_ACCELERATOR)
		return "accelerator";
	return "other";
}

static int describe(const struct found_device *f, unsigned index, gt_cl_device_info *info, gt_error *err)
{
	memset(info, 0, sizeof *info);
	info->index = index;
	cl_int rc = clGetPlatformInfo(f->platform, CL_PLATFORM_NAME, sizeof info->platform,
				      info->platform, NULL);
	info->platform[sizeof info->platform - 1] = '\0';
	if (rc != CL_SUCCESS)
		return gt_fail(err, GT_EDEVICE, "clGetPlatformInfo failed: %s", gt_cl_error_name(rc));
	cl_device_type type = 0;
	cl_uint cu = 0;
	cl_ulong gmem = 0, maxalloc = 0;
	size_t wg = 0;
	if ((rc = query_string(f->device, CL_DEVICE_NAME, info->name, sizeof info->name)) ||
	    (rc = query_string(f->device, CL_DEVICE_VERSION, info->version, sizeof info->version)) ||
	    (rc = query_string(f->device, CL_DRIVER_VERSION, info->driver, sizeof info->driver)) ||
	    (rc = clGetDeviceInfo(f->device, CL_DEVICE_TYPE, sizeof type, &type, NULL)) ||
	    (rc = clGetDeviceInfo(f->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL)) ||
	    (rc = clGetDeviceInfo(f->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL)) ||
	    (rc = clGetDeviceInfo(f->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL)) ||
	    (rc = clGetDeviceInfo(f->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL)))
		return gt_fail(err, GT_EDEVICE, "clGetDeviceInfo failed on '%s': %s", info->name,
			       gt_cl_error_name(rc));
	snprintf(info->type, sizeof info->type, "%s", type_name(type));
	info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
	info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
	info->compute_units = cu;
	info->global_mem = gmem;
	info->max_alloc = maxalloc;
	info->max_work_group = wg;
	return 0;
}

/* Every device, found and described: what listing and opening share. */
static int find_devices(struct found_device **devs_out, gt_cl_device_info **infos_out, size_t *count,
			gt_error *err)
{
	struct found_device *devs;
	size_t n;
	if (enumerate(&devs, &n, err) < 0)
		return -1;
	gt_cl_device_info *infos = gt_fault_hit("alloc") ? NULL : calloc(n ? n : 1, sizeof *infos);
	if (!infos) {
		free(devs);
		return gt_fail(err, GT_EDEVICE, "out of memory listing OpenCL devices");
	}
	for (size_t i = 0; i < n; i++) {
		if (describe(&devs[i], (unsigned)i, &infos[i], err) < 0) {
			free(devs);
			free(infos);
			return -1;
		}
	}
	*devs_out = devs;
	*infos_out = infos;
	*count = n;
	return 0;
}

int gt_cl_list(gt_cl_device_info **out, size_t *count, gt_error *err)
{
	struct found_device *devs;
	*out = NULL;
	*count = 0;
	if (find_devices(&devs, out, count, err) < 0)
		return -1;
	free(devs);
	return 0;
}

/* --- choice and opening ------------------------------------------------ */

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	if (nl == 0)
		return false;
	for (; *hay; hay++) {
		size_t k = 0;
		while (k < nl && hay[k] &&
		       tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
			k++;
		if (k == nl)
			return true;
	}
	return false;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Picks an index into infos for spec; -1 for the host path; -2 on error. */
static long choose(const char *spec, const gt_cl_device_info *infos, size_t n, gt_error *err)
{
	if (strcasecmp(spec, "host") == 0)
		return -1;
	if (strcasecmp(spec, "gpu") == 0 || strcasecmp(spec, "auto") == 0) {
		/* A CPU OpenCL device (PoCL) is slower than the host path and
		 * uses more memory: these take only a GPU. */
		for (size_t i = 0; i < n; i++)
			if (infos[i].is_gpu)
				return (long)i;
		return -1;
	}
	if (all_digits(spec)) {
		unsigned long v = strtoul(spec, NULL, 10);
		if (v >= n || strlen(spec) > 9)
			return gt_fail(err, GT_EDEVICE, "no OpenCL device '%s' (%zu device%s; see 'gputrace devices')",
				       spec, n, n == 1 ? "" : "s"), -2;
		return (long)v;
	}
	for (size_t i = 0; i < n; i++)
		if (contains_nocase(infos[i].name, spec) || contains_nocase(infos[i].platform, spec))
			return (long)i;
	return gt_fail(err, GT_EDEVICE, "no OpenCL device matches '%s' (see 'gputrace devices')", spec), -2;
}

int gt_cl_check(const gt_cl *cl, cl_int rc, const char *call, gt_error *err)
{
	/* tests/fault_walk.sh: the "cl" site fails a checked call that worked */
	if (rc == CL_SUCCESS && gt_fault_hit("cl"))
		rc = strncmp(call, "clCreateBuffer", 14) == 0 ? CL_MEM_OBJECT_ALLOCATION_FAILURE
							       : CL_OUT_OF_RESOURCES;
	if (rc == CL_SUCCESS)
		return 0;
	bool fresh = err && err->status == 0;
	gt_fail(err, GT_EDEVICE, "%s failed: %s (%d) on '%s'", call, gt_cl_error_name(rc), (int)rc,
		cl ? cl->device_name : "?");
	if (fresh)
		err->cause = gt_cl_memory_error(rc) ? GT_CAUSE_DEVICE_MEMORY : GT_CAUSE_NONE;
	return -1;
}

bool gt_cl_memory_error(cl_int rc)
{
	return rc == CL_MEM_OBJECT_ALLOCATION_FAILURE || rc == CL_OUT_OF_RESOURCES ||
	       rc == CL_OUT_OF_HOST_MEMORY || rc == CL_INVALID_BUFFER_SIZE;
}

const char *gt_cl_device_spec(const char *spec)
{
	if (!spec || !*spec)
		spec = getenv("GPUTRACE_DEVICE");
	return spec && *spec ? spec : "auto";
}

int gt_cl_open(gt_cl **out, const char *spec, char *chosen, size_t chosen_len, gt_error *err)
{
	*out = NULL;
	spec = gt_cl_device_spec(spec);
	bool is_auto = strcasecmp(spec, "auto") == 0 || strcasecmp(spec, "gpu") == 0;
	if (strcasecmp(spec, "host") == 0) {
		if (chosen)
			snprintf(chosen, chosen_len, "device: host (plain C)");
		return 0;
	}
	struct found_device *devs;
	gt_cl_device_info *infos;
	size_t n;
	if (find_devices(&devs, &infos, &n, err) < 0)
		return -1;
	long pick = choose(spec, infos, n, err);
	if (pick < 0) {
		if (pick == -1 && chosen)
			snprintf(chosen, chosen_len, "device: host (plain C; %s)",
				 n ? "no GPU among the OpenCL devices" : "no OpenCL platform");
		free(devs);
		free(infos);
		return pick == -1 ? 0 : -1;
	}
	gt_cl *cl = gt_fault_hit("alloc") ? NULL : calloc(1, sizeof *cl);
	if (!cl) {
		free(devs);
		free(infos);
		return gt_fail(err, GT_EDEVICE, "out of memory opening the OpenCL device");
	}
	const gt_cl_device_info *in = &infos[pick];
	pthread_mutex_init(&cl->programs_lock, NULL);
	kept_buffers_init(&cl->kept);
	cl->platform = devs[pick].platform;
	cl->device = devs[pick].device;
	snprintf(cl->platform_name, sizeof cl->platform_name, "%s", in->platform);
	snprintf(cl->device_name, sizeof cl->device_name, "%s", in->name);
	snprintf(cl->device_version, sizeof cl->device_version, "%s", in->version);
	snprintf(cl->driver_version, sizeof cl->driver_version, "%s", in->driver);
	cl->max_alloc = in->max_alloc;
	cl->global_mem = in->global_mem;
	cl->max_work_group = in->max_work_group;
	cl->compute_units = in->compute_units;
	if (chosen)
		snprintf(chosen, chosen_len, "device %ld: %s (%s, %s)%s", pick, in->name, in->platform,
			 in->type, is_auto ? ", chosen automatically" : "");
	free(devs);
	free(infos);

	cl_int rc;
	cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)cl->platform, 0};
	cl->context = clCreateContext(props, 1, &cl->device, NULL, NULL, &rc);
	if (gt_cl_check(cl, rc, "clCreateContext", err) < 0) {
		gt_cl_close(cl);
		return -1;
	}
	cl->queue = clCreateCommandQueue(cl->context, cl->device, CL_QUEUE_PROFILING_ENABLE, &rc);
	if (gt_cl_check(cl, rc, "clCreateCommandQueue", err) < 0) {
		gt_cl_close(cl);
		return -1;
	}
	*out = cl;
	return 0;
}

void gt_cl_close(gt_cl *cl)
{
	if (!cl)
		return;
	kept_buffers_destroy(&cl->kept);
	for (int i = 0; i < cl->nprograms; i++)
		clReleaseProgram(cl->programs[i].program);
	if (cl->queue)
		clReleaseCommandQueue(cl->queue);
	if (cl->context)
		clReleaseContext(cl->context);
	pthread_mutex_destroy(&cl->programs_lock);
	free(cl);
}

int gt_cl_buffer_take(gt_cl *cl, uint64_t size, cl_mem *out, gt_error *err)
{
	size = size ? size : 8; /* OpenCL refuses empty buffers */
	*out = kept_buffers_take(&cl->kept, size);
	if (*out) {
		/* checked as a new buffer is, so that the fault walk's "cl" points
		 * do not depend on which thread found a kept one */
		if (gt_cl_check(cl, CL_SUCCESS, "clCreateBuffer", err) == 0)
			return 0;
		gt_cl_buffer_give(cl, *out);
		*out = NULL;
		return -1;
	}
	cl_int rc;
	*out = clCreateBuffer(cl->context, CL_MEM_READ_WRITE, (size_t)size, NULL, &rc);
	return gt_cl_check(cl, rc, "clCreateBuffer", err);
}

void gt_cl_buffer_give(gt_cl *cl, cl_mem b)
{
	size_t size = 0;
	if (b && (clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS ||
		  !kept_buffers_give(&cl->kept, b, size)))
		clReleaseMemObject(b);
}

cl_context gt_cl_context(const gt_cl *cl) { return cl->context; }
cl_command_queue gt_cl_queue(const gt_cl *cl) { return cl->queue; }
cl_device_id gt_cl_device(const gt_cl *cl) { return cl->device; }
const char *gt_cl_device_name(const gt_cl *cl) { return cl->device_name; }
uint64_t gt_cl_max_alloc(const gt_cl *cl) { return cl->max_alloc; }
uint64_t gt_cl_global_mem(const gt_cl *cl) { return cl->global_mem; }
size_t gt_cl_max_work_group(const gt_cl *cl) { return cl->max_work_group; }
unsigned gt_cl_compute_units(const gt_cl *cl) { return cl->compute_units; }

uint64_t gt_cl_event_ns(cl_event ev)
{
	cl_ulong start = 0, end = 0;
	if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
		return 0;
	return end > start ? end - start : 0;
}

/* --- programs and the binary cache -------------------------------------- */

#define CACHE_MAGIC "GTCLBIN1"

struct cache_header {
	char magic[8];
	uint64_t key;      /* hash of what the binary depends on */
	uint64_t length;   /* payload bytes */
	uint64_t checksum; /* hash of the payload */
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t hash_str(uint64_t h, const char *s)
{
	return fnv1a(h, s, strlen(s) + 1); /* the NUL separates fields */
}

static const char *find_source(const char *name)
{
	for (const struct gt_kernel_source *k = gt_kernel_sources; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k->text;
	return NULL;
}

/* The table's own copy of the name, which outlives the caller's string. */
static const char *stored_name(const char *name)
{
	for (const struct gt_kernel_source *k = gt_kernel_sources; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k->name;
	return NULL;
}

static uint64_t cache_key(const gt_cl *cl, const char *source)
{
	uint64_t h = FNV_BASIS;
	h = hash_str(h, cl->platform_name);
	h = hash_str(h, cl->device_name);
	h = hash_str(h, cl->device_version);
	h = hash_str(h, cl->driver_version);
	h = hash_str(h, BUILD_OPTIONS);
	return hash_str(h, source);
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc != 0 && errno != EEXIST)
			return -1;
	}
	return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int gt_cl_cache_path(const gt_cl *cl, const char *name, char *buf, size_t len)
{
	const char *source = find_source(name);
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (!source)
		return -1;
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/gputrace", xdg);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.cache/gputrace", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= len)
		return -1;
	size_t dir_len = (size_t)n;
	n = snprintf(buf + dir_len, len - dir_len, "/%s-%016llx.bin", name,
		     (unsigned long long)cache_key(cl, source));
	return n < 0 || (size_t)n >= len - dir_len ? -1 : 0;
}

/* Reads a cache entry; NULL when absent, short, or its header or checksum
 * does not match (the caller then rebuilds and overwrites it). */
static unsigned char *cache_read(const char *path, uint64_t key, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct cache_header h;
	unsigned char *data = NULL;
	if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, CACHE_MAGIC, 8) != 0 || h.key != key ||
	    h.length == 0 || h.length > (1ull << 31))
		goto bad;
	data = gt_fault_hit("alloc") ? NULL : malloc(h.length);
	if (!data || fread(data, 1, h.length, f) != h.length || fgetc(f) != EOF ||
	    fnv1a(FNV_BASIS, data, h.length) != h.checksum)
		goto bad;
	fclose(f);
	*len = h.length;
	return data;
bad:
	free(data);
	fclose(f);
	return NULL;
}

/* Writes a temporary file beside the entry and renames it into place, so a
 * reader (or a second writer) sees the old entry or the new one, whole. */
static void cache_write(const char *path, uint64_t key, const unsigned char *data, size_t len)
{
	char dir[4096], tmp[4200];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (mkdirs(dir) < 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)ts.tv_nsec);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	struct cache_header h;
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.key = key;
	h.length = len;
	h.checksum = fnv1a(FNV_BASIS, data, len);
	bool ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, len, f) == len;
	ok = (fflush(f) == 0) && ok;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0)
		unlink(tmp);
}

/* One line from a build log: newlines become " | ", truncated. */
static void flatten_log(char *log)
{
	for (char *p = log; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static int build_log_error(gt_cl *cl, cl_program prog, const char *name, cl_int rc, gt_error *err)
{
	char log[700];
	size_t got = 0;
	log[0] = '\0';
	if (clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, &got) !=
	    CL_SUCCESS) {
		/* A log longer than the buffer fails the call: read it whole. */
		size_t need = 0;
		if (clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &need) ==
			    CL_SUCCESS && need > 0) {
			char *all = gt_fault_hit("alloc") ? NULL : malloc(need);
			if (all && clGetProgramBuildInfo(prog, cl->device, CL_PROGRAM_BUILD_LOG, need, all,
							 NULL) == CL_SUCCESS)
				snprintf(log, sizeof log, "%s", all);
			free(all);
		}
	}
	log[sizeof log - 1] = '\0';
	flatten_log(log);
	return gt_fail(err, GT_EDEVICE, "clBuildProgram failed for kernels/%s.cl: %s (%d) on '%s': %s", name,
		       gt_cl_error_name(rc), (int)rc, cl->device_name, log[0] ? log : "no build log");
}

static cl_program build_from_binary(gt_cl *cl, const unsigned char *bin, size_t len)
{
	cl_int rc, status;
	cl_program p = clCreateProgramWithBinary(cl->context, 1, &cl->device, &len, &bin, &status, &rc);
	if (rc != CL_SUCCESS || status != CL_SUCCESS) {
		if (p)
			clReleaseProgram(p);
		return NULL;
	}
	if (clBuildProgram(p, 1, &cl->device, BUILD_OPTIONS, NULL, NULL) != CL_SUCCESS) {
		clReleaseProgram(p);
		return NULL;
	}
	return p;
}

static unsigned char *program_binary(cl_program p, size_t *len)
{
	size_t size = 0;
	if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || !size)
		return NULL;
	unsigned char *bin = gt_fault_hit("alloc") ? NULL : malloc(size);
	if (!bin || clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
		free(bin);
		return NULL;
	}
	*len = size;
	return bin;
}

static int program_locked(gt_cl *cl, const char *name, cl_program *out, gt_error *err)
{
	for (int i = 0; i < cl->nprograms; i++) {
		if (strcmp(cl->programs[i].name, name) == 0) {
			*out = cl->programs[i].program;
			return 0;
		}
	}
	if (cl->nprograms == MAX_PROGRAMS)
		return gt_fail(err, GT_EDEVICE, "too many OpenCL programs (at most %d)", MAX_PROGRAMS);
	const char *source = find_source(name);
	if (!source)
		return gt_fail(err, GT_EDEVICE, "no embedded kernel source 'kernels/%s.cl'", name);
	uint64_t key = cache_key(cl, source);
	char path[4096];
	bool cacheable = gt_cl_cache_path(cl, name, path, sizeof path) == 0;
	cl_program prog = NULL;
	cl->last_from_cache = false;
	if (cacheable) {
		size_t len;
		unsigned char *bin = cache_read(path, key, &len);
		if (bin) {
			prog = build_from_binary(cl, bin, len);
			cl->last_from_cache = prog != NULL;
			free(bin);
		}
	}
	if (!prog) {
		cl_int rc;
		prog = clCreateProgramWithSource(cl->context, 1, &source, NULL, &rc);
		if (gt_cl_check(cl, rc, "clCreateProgramWithSource", err) < 0)
			return -1;
		rc = clBuildProgram(prog, 1, &cl->device, BUILD_OPTIONS, NULL, NULL);
		if (rc != CL_SUCCESS) {
			build_log_error(cl, prog, name, rc, err);
			clReleaseProgram(prog);
			return -1;
		}
		size_t len;
		unsigned char *bin = cacheable ? program_binary(prog, &len) : NULL;
		if (bin)
			cache_write(path, key, bin, len);
		free(bin);
	}
	cl->programs[cl->nprograms].name = stored_name(name);
	cl->programs[cl->nprograms].program = prog;
	cl->nprograms++;
	*out = prog;
	return 0;
}

int gt_cl_program(gt_cl *cl, const char *name, cl_program *out, gt_error *err)
{
	pthread_mutex_lock(&cl->programs_lock);
	int rc = program_locked(cl, name, out, err);
	pthread_mutex_unlock(&cl->programs_lock);
	return rc;
}

bool gt_cl_last_program_cached(const gt_cl *cl)
{
	return cl->last_from_cache;
}

int gt_cl_kernel(gt_cl *cl, const char *program, const char *kernel, cl_kernel *out, gt_error *err)
{
	cl_program p;
	if (gt_cl_program(cl, program, &p, err) < 0)
		return -1;
	cl_int rc;
	*out = clCreateKernel(p, kernel, &rc);
	if (rc != CL_SUCCESS) {
		*out = NULL;
		return gt_fail(err, GT_EDEVICE, "clCreateKernel '%s' failed: %s (%d) on '%s'", kernel,
			       gt_cl_error_name(rc), (int)rc, cl->device_name);
	}
	return 0;
}
