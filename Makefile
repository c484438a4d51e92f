# The two commands of the README: `make demo` and `make test`.
# Both install missing Debian packages first (scripts/setup), then build.
BUILD ?= build
JOBS ?= $(shell nproc)
SANITIZE ?=
CMAKE_FLAGS ?=

# Sanitizer reports abort the process (a signal, which the reliability tests
# count as a crash), also in the weft child processes the tests start.
TEST_ENV :=
ifneq ($(SANITIZE),)
BUILD := build-sanitize
CMAKE_FLAGS += -DWEFT_SANITIZE=$(SANITIZE) -DCMAKE_BUILD_TYPE=Debug
TEST_ENV := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_string_checks=1 \
            LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
            UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
endif

# make fuzz: the mutation fuzz loop of `make test`, longer
# (FUZZ_ITERATIONS cases per target from FUZZ_SEED; failures are kept under
# $(BUILD)/fuzz-failures/ for replay).
FUZZ_ITERATIONS ?= 3000
FUZZ_SEED ?= 1

.PHONY: all setup build test demo bench clean fuzz

all: build

setup:
	@scripts/setup

$(BUILD)/CMakeCache.txt: | setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: setup $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: build
	@cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j $(JOBS)

fuzz: build
	@cd $(BUILD) && $(TEST_ENV) WEFT_FUZZ_ITERATIONS=$(FUZZ_ITERATIONS) WEFT_FUZZ_SEED=$(FUZZ_SEED) \
	  WEFT_FUZZ_FAILURES=$(CURDIR)/$(BUILD)/fuzz-failures tests/test_fuzz_import

demo: build
	@scripts/demo $(BUILD)

bench: build
	@bench/import $(BUILD)/app/weft

clean:
	rm -rf build build-sanitize
