/* gputrace devices: the OpenCL platforms and devices, with the index that
 * --device N takes. */
#include <stddef.h>
#include <stdlib.h>

#include "cl/cl.h"
#include "cli.h"
#include "write/write.h"
#include "output.h"

static const struct gt_opt devices_opts[] = {
	GT_OPT_FORMAT, GT_OPT_OUTPUT, GT_OPT_HELP, GT_OPT_END,
};

static const char *info_text(const void *ctx, uint64_t row, size_t offset)
{
	return (const char *)((const gt_cl_device_info *)ctx + row) + offset;
}
#define TEXT_GETTER(field) \
	static const char *get_##field(const void *ctx, uint64_t row) \
	{ \
		return info_text(ctx, row, offsetof(gt_cl_device_info, field)); \
	}
TEXT_GETTER(platform)
TEXT_GETTER(name)
TEXT_GETTER(type)
TEXT_GETTER(version)
TEXT_GETTER(driver)

/* Getters rather than strided data: with no device infos may be NULL. */
static const gt_cl_device_info *info_at(const void *ctx, uint64_t row)
{
	return (const gt_cl_device_info *)ctx + row;
}
static int64_t get_index(const void *ctx, uint64_t row) { return info_at(ctx, row)->index; }
static int64_t get_compute_units(const void *ctx, uint64_t row) { return info_at(ctx, row)->compute_units; }
static int64_t get_global_mem(const void *ctx, uint64_t row) { return (int64_t)info_at(ctx, row)->global_mem; }
static int64_t get_max_alloc(const void *ctx, uint64_t row) { return (int64_t)info_at(ctx, row)->max_alloc; }
static int64_t get_max_work_group(const void *ctx, uint64_t row)
{
	return (int64_t)info_at(ctx, row)->max_work_group;
}

static int run_devices(const struct gt_command *cmd, int argc, char **argv)
{
	struct gt_common c;
	struct gt_opt_state st;
	int status;
	if (!gt_parse_common(cmd, argc, argv, &c, &st, &status))
		return status;
	if (st.noperands != 0)
		return gt_usage_error(cmd, "'devices' takes no operands");
	gt_error err = {0};
	gt_cl_device_info *infos;
	size_t n;
	if (gt_cl_list(&infos, &n, &err) < 0)
		return gt_report(&err);
	gt_column cols[] = {
		{.name = "index", .type = GT_COL_U32, .get_i64 = get_index, .get_ctx = infos},
		{.name = "platform", .type = GT_COL_STR, .get_str = get_platform, .get_ctx = infos},
		{.name = "name", .type = GT_COL_STR, .get_str = get_name, .get_ctx = infos},
		{.name = "type", .type = GT_COL_STR, .get_str = get_type, .get_ctx = infos},
		{.name = "compute_units", .type = GT_COL_U32, .get_i64 = get_compute_units, .get_ctx = infos},
		{.name = "global_mem_bytes", .type = GT_COL_U64, .get_i64 = get_global_mem, .get_ctx = infos},
		{.name = "max_alloc_bytes", .type = GT_COL_U64, .get_i64 = get_max_alloc, .get_ctx = infos},
		{.name = "max_work_group_size", .type = GT_COL_U64, .get_i64 = get_max_work_group, .get_ctx = infos},
		{.name = "version", .type = GT_COL_STR, .get_str = get_version, .get_ctx = infos},
		{.name = "driver", .type = GT_COL_STR, .get_str = get_driver, .get_ctx = infos},
	};
	gt_table t = {.name = "devices", .cols = cols, .ncols = sizeof cols / sizeof cols[0], .nrows = n};
	const char *mk[2], *mv[2];
	gt_cli_table_meta(&t, "", mk, mv);
	int rc = gt_cli_write_table(&c, &t);
	free(infos);
	return rc;
}

const struct gt_command gt_cmd_devices = {
	.name = "devices",
	.args = "",
	.summary = "list the OpenCL platforms and devices (the index is what --device N takes)",
	.opts = devices_opts,
	.run = run_devices,
};
