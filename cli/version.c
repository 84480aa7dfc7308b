/* The version every output that names its writer gives (--version, the
 * Arrow schema metadata); one definition for the program and the fuzzers. */
#include "cli.h"

const char *gt_program_version = "0.1.0";
