# entityapi: the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
APPS := backoffice storefront
ADDR ?= 127.0.0.1:8080

.PHONY: run webhook-demo build generate sdk verify release-docs lint test test-short test-pooler contract fuzz bench bench-http soak readme-check docs-assets clean

## run: build bin/entityapi, then start it on embedded SQLite with demo data (webhooks may target
## this machine); it says it is building first, since the first build takes minutes
run:
	@echo "make run: building bin/entityapi (the first build compiles every dependency and takes a few minutes; later ones take seconds)"
	@$(GO) build -ldflags "$(STAMP_FLAGS)" -o bin/entityapi .
	@echo "make run: starting bin/entityapi serve --demo"
	exec bin/entityapi serve --demo --webhook-allow-http --webhook-allow-private

## webhook-demo: start a webhook receiver on 127.0.0.1:9090 that verifies and prints deliveries
## (docs/webhooks.md); the secret goes to $(WEBHOOK_SECRET_FILE)
WEBHOOK_SECRET_FILE ?= data/webhook-secret
webhook-demo:
	$(GO) run ./scripts/webhookdemo -addr 127.0.0.1:9090 -secret-file $(WEBHOOK_SECRET_FILE)

# What `entityapi version` prints for a `make build` binary (server/cli/version.go).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)

STAMP_FLAGS = -X github.com/entityapi/entityapi/server/cli.version=$(VERSION) -X github.com/entityapi/entityapi/server/cli.commit=$(COMMIT)

## build: build the binary into bin/entityapi, stamped with VERSION and COMMIT (from git)
build:
	$(GO) build -ldflags "$(STAMP_FLAGS)" -o bin/entityapi .

# scripts/bundle prints, comma-separated, the operations served by hand-written handlers (the
# documents say which: x-entityapi), which oapi-codegen and scripts/genreply leave out.

## generate: rebuild the bundled documents and the generated server packages from openapi/
## (it wipes gen/backoffice and gen/storefront only, never the SDKs in gen/sdk/); scripts/genprune
## removes the strict server's typed responses (the handlers answer through scripts/genreply's one
## Response type); scripts/genquery
## makes each generated Gin wrapper parse the query string once instead of once per parameter, and
## bind an optional plain parameter only when its key is present;
## scripts/genglue then writes each application's handler methods, server/handlers_<app>.gen.go, and
## scripts/genmodels the list of the Bun models of the documents' tables, storage/models.gen.go
generate:
	@for app in $(APPS); do \
	  rm -rf gen/$$app && mkdir -p gen/$$app && \
	  exclude=$$($(GO) run ./scripts/bundle -root openapi/$$app/root.yaml \
	    -public openapi/bundled/$$app.yaml -codegen openapi/bundled/$$app.codegen.yaml) && \
	  $(GO) tool oapi-codegen -config openapi/$$app/oapi-codegen.yaml -exclude-operation-ids "$$exclude" \
	    openapi/bundled/$$app.codegen.yaml && \
	  $(GO) run ./scripts/genprune gen/$$app/server.gen.go && \
	  $(GO) run ./scripts/genquery gen/$$app/server.gen.go && \
	  $(GO) run ./scripts/genreply -spec openapi/bundled/$$app.codegen.yaml -package $$app \
	    -out gen/$$app/reply.gen.go -exclude "$$exclude" || exit 1; \
	done
	$(GO) run ./scripts/genglue $(APPS)
	$(GO) run ./scripts/genmodels $(APPS)

# The TypeScript SDK generator, pinned in scripts/package.json.
OPENAPI_TS := scripts/node_modules/.bin/openapi-typescript

## sdk: regenerate the committed client SDKs under gen/sdk/ from the public documents in
## openapi/bundled/: Go (oapi-codegen, openapi/sdk/<app>.oapi-codegen.yaml) and TypeScript
## types for openapi-fetch (openapi-typescript); `make generate` never touches gen/sdk/
sdk:
	test -x $(OPENAPI_TS) || (cd scripts && npm ci --no-audit --no-fund)
	rm -rf gen/sdk && mkdir -p gen/sdk/ts
	@for app in $(APPS); do \
	  mkdir -p gen/sdk/go/$$app && \
	  $(GO) tool oapi-codegen -config openapi/sdk/$$app.oapi-codegen.yaml openapi/bundled/$$app.yaml && \
	  $(OPENAPI_TS) openapi/bundled/$$app.yaml -o gen/sdk/ts/$$app.ts || exit 1; \
	done

## verify: fail when generated files (server packages, SDKs) are stale, go.mod is untidy, or a
## public document breaks its last released version in openapi/released/ (scripts/breaking, oasdiff)
verify: generate
	$(MAKE) --no-print-directory sdk
	$(GO) mod tidy
	$(GO) run ./scripts/breaking -released openapi/released -bundled openapi/bundled $(APPS)
	@git diff --exit-code -- gen openapi 'server/*.gen.go' 'storage/*.gen.go' go.mod go.sum || \
	  { echo "generated files or go.mod are stale: run 'make generate', 'make sdk' and 'go mod tidy', then commit"; exit 1; }
	@test -z "$$(git status --porcelain -- gen openapi 'server/*.gen.go' 'storage/*.gen.go')" || \
	  { echo "untracked generated files:"; git status --porcelain -- gen openapi 'server/*.gen.go' 'storage/*.gen.go'; exit 1; }

## release-docs: make the bundled public documents the last released versions (after a new major)
release-docs: generate
	cp $(foreach app,$(APPS),openapi/bundled/$(app).yaml) openapi/released/

## lint: gofmt, go vet, import rules, no tracked file over 1 MiB outside gen/ and vendored assets,
## Spectral and Redocly on the public documents
lint:
	bash scripts/check-tracked-size.sh
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/')); \
	  test -z "$$out" || { echo "gofmt needed:"; echo "$$out"; exit 1; }
	$(GO) vet ./...
	$(GO) run ./scripts/importcheck
	bash scripts/lint-openapi.sh $(foreach app,$(APPS),openapi/bundled/$(app).yaml)

## test: every test, on SQLite and (when TEST_DATABASE_URL is set) PostgreSQL. Most of a test's time is
## spent waiting (HTTP, the databases, the job queue), so TEST_P (4) packages run at once and each runs
## TEST_PARALLEL (4) of its parallel tests at once; tests that measure the process run alone
test:
	@summary=$$(mktemp); trap 'rm -f $$summary' EXIT; \
	  CONTRACT_SUMMARY=$$summary $(GO) test -count=1 -p $${TEST_P:-4} -parallel $${TEST_PARALLEL:-4} \
	  -timeout $${TEST_TIMEOUT:-20m} ./... && { cat $$summary; true; }

## test-short: the quick loop, under a minute: SQLite only, and -short leaves out the slowest tests
## (the browser, killed processes, the add-an-entity guide's build, memory and allocation bounds)
test-short:
	TEST_DATABASE_URL= CI= $(GO) test -short -count=1 -p $${TEST_P:-4} -parallel $${TEST_PARALLEL:-4} ./...

## test-pooler: the PostgreSQL suite's storage paths through PgBouncer in transaction mode
## (--database-pooler transaction): storage, tokens and batches whole, and the API's reads,
## writes, upserts, batches, atomic requests, Idempotency-Keys, events and webhooks; needs TEST_DATABASE_URL and pgbouncer
POOLER_API_TESTS := TestEvery(ReadAndRelationship|Write|Storefront)Operation|TestIdempotencyKey|TestRelatedFieldFilters$$|TestWriteResources|TestUpsert|TestConcurrentUpserts|TestBatch(ItemErrors|Sync|UpdatesUpsertsAndClashes|IncludedAsync|ClientChosenIDs|LargeJobs)$$|TestAtomic(Operations|AllOrNothing)|TestEvents|TestWebhook(DeliveriesAreSigned|Resource|RetriesThenDisables)|TestToken|TestRelatedRecordsInOneRequest|TestIncludeAndFields|TestCursorWalks|TestIfMatch|TestReadCountriesAndRegions|TestOperation|TestQueriesPer
test-pooler:
	@test -n "$$TEST_DATABASE_URL" || { echo "test-pooler: set TEST_DATABASE_URL (the server behind the pooler)"; exit 1; }
	@eval "$$(scripts/pgbouncer/start.sh)" && trap 'scripts/pgbouncer/stop.sh "$$POOLER_DIR"' EXIT && \
	  echo "PgBouncer (transaction mode) at $$POOLER_URL" && \
	  TEST_DATABASE_POOLER_URL="$$POOLER_URL" $(GO) test -count=1 -p $${TEST_P:-4} -parallel $${TEST_PARALLEL:-4} \
	    -timeout $${TEST_TIMEOUT:-20m} ./storage/... ./server/auth/... ./server/batch/... ./server/engine/... && \
	  TEST_DATABASE_POOLER_URL="$$POOLER_URL" $(GO) test -count=1 -parallel $${TEST_PARALLEL:-4} \
	    -timeout $${TEST_TIMEOUT:-20m} -run '$(POOLER_API_TESTS)' ./server && \
	  { TEST_DATABASE_POOLER_URL="$$POOLER_URL" $(GO) test -count=1 -v -run 'TestThroughThePooler' ./storage/storagetest | \
	    grep -q -- '--- PASS: TestThroughThePooler' || { echo "test-pooler: the stores did not go through PgBouncer"; exit 1; }; }

# Portman and newman, pinned in scripts/package.json.
CONTRACT_TOOLS := scripts/node_modules/.bin/portman scripts/node_modules/.bin/newman

## contract: the contract tests partners generate from the served documents (docs/contract.md):
## Portman writes them from each application's document and newman runs them against a fresh
## `serve --demo` (SQLite; a throwaway PostgreSQL database on the server of TEST_DATABASE_URL
## when it is set); any failure fails. KEEP=dir keeps the collections, logs and reports
contract:
	@for t in $(CONTRACT_TOOLS); do test -x $$t || { (cd scripts && npm ci --no-audit --no-fund) && break; }; done
	$(GO) run ./scripts/contract $${KEEP:+-keep "$$KEEP"}

## fuzz: run the request-document fuzz test for a while (FUZZTIME=30s)
fuzz:
	$(GO) test ./server -run '^$$' -fuzz FuzzRequestDocument -fuzztime $${FUZZTIME:-30s}

## bench: Go benchmarks of the API and their ratio to a bare handler, the 100,000-account batch against a raw
## INSERT, a RECORDS-record (1,000,000) batch's rate and peak RSS, a cursor walk over WALK_RECORDS (1,000,000) accounts
## with its time per page at each tenth, and bench-http (set TEST_DATABASE_URL for PostgreSQL)
bench:
	set -o pipefail; { $(GO) test ./server -run '^$$' -bench . -skip '100k$$' -benchmem -count=$${COUNT:-3} && \
	  $(GO) test ./server -run '^$$' -bench '100k$$' -benchtime 1x -benchmem -count=$${BATCH_COUNT:-3} -timeout 2h; } | \
	  $(GO) run ./scripts/benchratio
	$(GO) run ./scripts/batchload -records $${RECORDS:-1000000} -update
	if [ -n "$$TEST_DATABASE_URL" ]; then $(GO) run ./scripts/batchload -records $${RECORDS:-1000000} -update -postgres-admin "$$TEST_DATABASE_URL"; fi
	$(GO) run ./scripts/cursorwalk -records $${WALK_RECORDS:-1000000}
	if [ -n "$$TEST_DATABASE_URL" ]; then $(GO) run ./scripts/cursorwalk -records $${WALK_RECORDS:-1000000} -postgres-admin "$$TEST_DATABASE_URL"; fi
	$(MAKE) --no-print-directory bench-http

## bench-http: the table of issue 16: the real binary over loopback HTTP (wrk -c32 -t2; apt-get install wrk) against
## floors built in scripts/benchhttp (the captured bytes, the same queries prepared, one INSERT/UPDATE ... RETURNING, a raw
## multi-row INSERT and COPY), interleaved, medians of ROUNDS (3) rounds of DURATION (5s), on SQLite and (with
## TEST_DATABASE_URL) PostgreSQL; BASELINE=<git revision> measures that build beside the working tree. With
## TEST_DATABASE_URL and pgbouncer installed, a PgBouncer in transaction mode (scripts/pgbouncer/start.sh) adds
## the lines of GET one and POST through it, with their ratio to the direct connection. A second table measures the
## search and the related-field list at issue 32's size: each database grown by SCALE (100000) accounts and four times
## as many contacts (SCALE=0 leaves it out)
BENCH_HTTP = $(GO) run ./scripts/benchhttp -rounds $${ROUNDS:-3} -duration $${DURATION:-5s} $${BASELINE:+-baseline "$$BASELINE"}
bench-http:
	@if [ -n "$$TEST_DATABASE_URL" ] && command -v pgbouncer >/dev/null; then \
	  eval "$$(scripts/pgbouncer/start.sh)" && trap 'scripts/pgbouncer/stop.sh "$$POOLER_DIR"' EXIT && \
	  echo "bench-http: PgBouncer (transaction mode) at $$POOLER_URL" && \
	  $(BENCH_HTTP) -pooler "$$POOLER_URL"; \
	else \
	  if [ -n "$$TEST_DATABASE_URL" ] && [ -z "$$TEST_DATABASE_POOLER_URL" ]; then \
	    echo "bench-http: pgbouncer is not installed (apt-get install pgbouncer): the lines through PgBouncer are left out"; \
	  fi; \
	  $(BENCH_HTTP); \
	fi
	@if [ "$${SCALE:-100000}" != 0 ]; then \
	  echo "bench-http: the search and the related-field list on databases grown by $${SCALE:-100000} accounts"; \
	  $(BENCH_HTTP) -targets search,related -batch-records 0 -scale $${SCALE:-100000}; \
	fi

## soak: DURATION (10m) of mixed reads, writes and batches at 70% of the measured peak on PostgreSQL
## (a throwaway database on the server of TEST_DATABASE_URL); fails on any error or RSS growth over 20%
soak:
	$(GO) run ./scripts/soak -duration $${DURATION:-10m}

## readme-check: run every example of README.md and docs/*.md against a fresh `make run`
readme-check:
	bash scripts/readme-check.sh

# The Swagger UI files of the docs pages, unmodified, from the swagger-ui-dist package pinned in
# scripts/package.json (server/docs/swagger-ui/README.md).
SWAGGER_UI_FILES := swagger-ui.css swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt \
  favicon-16x16.png favicon-32x32.png LICENSE NOTICE

## docs-assets: copy the pinned Swagger UI files of the docs pages into server/docs/swagger-ui/
docs-assets:
	test -d scripts/node_modules/swagger-ui-dist || (cd scripts && npm ci)
	cp $(addprefix scripts/node_modules/swagger-ui-dist/,$(SWAGGER_UI_FILES)) server/docs/swagger-ui/
	node -p 'require("./scripts/node_modules/swagger-ui-dist/package.json").version' >server/docs/swagger-ui/VERSION

clean:
	rm -rf bin data
