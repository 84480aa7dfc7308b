# gputrace — build, test, install.  `make help` lists the targets.
# Sources are found by wildcard: add a file, not a Makefile line.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
BUILD ?= build
CC ?= cc
Q = $(if $(filter 1,$(V)),,@)

WARN = -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
       -Wformat=2 -Wundef -Wvla -Wno-unused-parameter
CSTD = -std=c11 -D_GNU_SOURCE
OPT ?= -O2 -g
ifeq ($(SANITIZE),1)
  OPT = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  BUILD := $(BUILD)-san
endif
ifeq ($(TSAN),1)
  OPT = -O1 -g -fsanitize=thread
  BUILD := $(BUILD)-tsan
endif
ifeq ($(FAULTS),1)
  CPPFLAGS += -DGT_FAULT_INJECTION
  BUILD := $(BUILD)-faults
endif
CPPFLAGS += -Isrc -Icli -I$(BUILD)/gen -DCL_TARGET_OPENCL_VERSION=120
CFLAGS += $(CSTD) $(WARN) $(OPT) -pthread
LDLIBS += -lOpenCL -lcjson -lzstd -lisal -lz -lxxhash -lm -pthread
LDFLAGS += $(filter -fsanitize%,$(OPT))

LIB_SRC = $(wildcard src/*/*.c)
CLI_SRC = $(wildcard cli/*.c)
KERNELS = $(wildcard kernels/*.cl)
TEST_SRC = $(wildcard tests/test_*.c)

LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/kernels.o
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB = $(BUILD)/libgputrace.a
BIN = $(BUILD)/gputrace

.PHONY: all deps check test demo bench bench-smoke install uninstall clean help fuzz

## all: build the gputrace binary
all: $(BIN) tools

$(BIN): $(CLI_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Kernels are embedded as C strings; the generator says how in its header.
$(BUILD)/gen/kernels.c: $(KERNELS) scripts/embed-kernels
	@mkdir -p $(dir $@)
	$(Q)sh scripts/embed-kernels $(KERNELS) > $@.tmp && mv $@.tmp $@

# The command table is generated from the cli/cmd_*.c files present.
$(BUILD)/gen/commands.h: $(wildcard cli/cmd_*.c) scripts/gen-commands
	@mkdir -p $(dir $@)
	$(Q)sh scripts/gen-commands $(wildcard cli/cmd_*.c) > $@.tmp && mv $@.tmp $@
$(BUILD)/cli/main.o: $(BUILD)/gen/commands.h

$(BUILD)/tests/%: tests/%.c tests/testutil.h $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(wildcard tests/util_*.c) $(LIB) -lcheck -lsubunit $(LDLIBS)

## deps: install missing Debian packages (and the Python test helpers into .venv)
deps:
	$(Q)sh scripts/install-deps

## check: install what is missing, build, run every test
check: deps
	$(Q)$(MAKE) --no-print-directory all-tests
	$(Q)sh scripts/run-tests $(BUILD)

.PHONY: all-tests
all-tests: $(BIN) tools $(TEST_BIN)

## check-valgrind: the ingest/info/spans/writer shell tests, every gputrace run under valgrind
.PHONY: check-valgrind
check-valgrind: all
	$(Q)sh scripts/valgrind-tests $(BUILD)

## check-tsan: the tests of the parallel ingest and of the threads' passes under ThreadSanitizer (TSAN=1 build); not in check
.PHONY: check-tsan
check-tsan:
	$(Q)$(MAKE) --no-print-directory TSAN=1 all tools
	$(Q)sh scripts/tsan-tests $(BUILD)-tsan

## check-viewer: load the overlays of the largest shared Kineto traces into catapult's viewer (headless Chromium); not in check
.PHONY: check-viewer
check-viewer: all
	$(Q)sh scripts/install-deps viewer
	$(Q)sh scripts/check-viewer $(BUILD)

## check-hta: stats' kernels, gpu-time and overlap reports against HTA 0.5.0 (Holistic Trace Analysis) on the shared PyTorch traces; not in check
.PHONY: check-hta
check-hta: all
	$(Q)sh scripts/install-deps hta
	$(Q)GPUTRACE_BIN=$(BIN) sh scripts/check-hta

## demo: install what is missing, build, run gputrace on a real trace from testdata/
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BIN) info testdata/demo/kineto_resnet50.json.gz
	$(Q)$(BIN) critical-path -f text testdata/demo/kineto_resnet50.json.gz

## bench: full benchmarks (minutes); bench-smoke: a quick run of the same harness
bench: all
	$(Q)sh scripts/bench $(BUILD)
bench-smoke: all
	$(Q)sh scripts/bench --smoke $(BUILD)

## fuzz: run the fuzz harnesses for FUZZ_SECONDS each
fuzz:
	$(Q)sh scripts/fuzz $(or $(FUZZ_SECONDS),60)

## install: install binary, man page and bash completion under DESTDIR/PREFIX
install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/gputrace
	install -m 644 man/gputrace.1 $(DESTDIR)$(MANDIR)/man1/gputrace.1
	install -m 644 scripts/gputrace.bash-completion $(DESTDIR)$(COMPDIR)/gputrace

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gputrace $(DESTDIR)$(MANDIR)/man1/gputrace.1 $(DESTDIR)$(COMPDIR)/gputrace

clean:
	rm -rf build build-san build-faults

help:
	@sed -n 's/^## //p' Makefile

# The build folder these variables choose (tests/sub_make.sh checks it).
.PHONY: print-build
print-build:
	@echo $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Stand-alone tools (trace generator) and benchmark drivers: tools/*.c and
# bench/*.c, each one program linked with the library.
TOOL_BIN = $(patsubst tools/%.c,$(BUILD)/tools/%,$(wildcard tools/*.c))
BENCH_BIN = $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
.PHONY: tools
tools: $(TOOL_BIN) $(BENCH_BIN)
$(BUILD)/tools/%: tools/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/gen/kernels.o: $(BUILD)/gen/kernels.c
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-overlength-strings -c -o $@ $<
