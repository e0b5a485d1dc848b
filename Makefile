# keyplan — the two set-up commands are `make synth` and `make test`.
SHELL := /bin/bash
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 1
GO ?= go

.PHONY: test vet fmt-check unit bench fuzz plan

## test: everything CI runs: vet, formatting, all tests.
test: vet fmt-check unit

vet:
	$(GO) mod download
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test ./...

## bench: the planner benchmarks (ns/op, allocs/op).
bench:
	$(GO) test ./patterns -run '^$$' -bench . -benchmem

## fuzz: fuzz the loader and planner for FUZZTIME (default 60s).
FUZZTIME ?= 60s
fuzz:
	$(GO) test ./patterns -run '^$$' -fuzz FuzzPlan -fuzztime $(FUZZTIME) -fuzzminimizetime 100x

## plan: print the plans of the example models.
plan:
	@for f in examples/*.yaml; do echo "== $$f"; $(GO) run ./cmd/keyplan plan $$f || exit $$?; done
