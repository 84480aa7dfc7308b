/* cl/: everything that talks to OpenCL: the runtime (platforms, devices,
 * cached program binaries, buffers; cl_runtime.h) and the device side of
 * each analysis (critpath_cl.h, cpm_cl.h, tindex_cl.h), each equal to its host
 * reference in analysis/. Kernels' sources are in kernels/ and embedded at
 * build time.
 * May use: analysis/, model/, base/. Never ingest/ or formats/. */
#ifndef GT_CL_H
#define GT_CL_H

#include "cl_runtime.h"
#include "critpath_cl.h"
#include "cpm_cl.h"
#include "tindex_cl.h"

#endif
