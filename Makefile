# The two commands of the README: `make demo` and `make test`.
# Both install missing Debian packages first (scripts/setup), then build.
BUILD ?= build
JOBS ?= $(shell nproc)
SANITIZE ?=
CMAKE_FLAGS ?=

ifneq ($(SANITIZE),)
BUILD := build-sanitize
CMAKE_FLAGS += -DWEFT_SANITIZE=$(SANITIZE) -DCMAKE_BUILD_TYPE=Debug
endif

.PHONY: all setup build test demo bench clean

all: build

setup:
	@scripts/setup

$(BUILD)/CMakeCache.txt: | setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: setup $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo $(BUILD)

bench: build
	@bench/import $(BUILD)/app/weft

clean:
	rm -rf build build-sanitize
