// Command importcheck enforces the layering of this module's packages, so that
// the parts we generate, the storage layer and the HTTP layer stay separable:
//
//   - storage/... is the persistence layer. It must not know about the HTTP
//     side, so it never depends on gen/..., server/... or
//     github.com/gin-gonic/gin. Storage can then be tested, reused and
//     replaced without dragging in a web framework. That holds for the
//     record stores beside the generic tables too: storage/jobs (batch
//     operations and their queue) and storage/authstore (clients,
//     principals, signing keys, failure counts).
//   - storage/jobs and storage/authstore build on storage (Go forbids the
//     reverse as a cycle) and not on each other, so that either can be read,
//     tested and changed alone.
//   - storage/dialect/sqlite and storage/dialect/postgres hold what differs
//     between the databases; they depend on no storage package but the leaf
//     storage/dialect (the interface they implement), so that storage
//     imports them and not the reverse. storage/jobs and storage/authstore
//     reach them only through storage, which asks the interface.
//   - server/auth reaches storage only through storage/authstore (and the
//     leaf storage/secret, the password and secret hashing both use): the
//     token service sees the auth records, never the generic tables or the
//     batch queue.
//   - gen/... holds code generated from the OpenAPI documents. Apart from the
//     JSON:API document types in server/jsonapi, which the generator is told
//     to use, it depends on no package of this module. Regenerating can then
//     never create an import cycle, and the handlers import the generated
//     code, not the reverse.
//   - gen/sdk/... holds the client SDKs generated from the public documents.
//     They depend on no package of this module at all, not even
//     server/jsonapi, so that a partner can copy them out as they are.
//   - server/jsonapi is the JSON:API document model shared by the generated
//     code and the handlers. It depends on the standard library only, so that
//     both can use it and it can be lifted into an SDK as is.
//   - Only package server, the HTTP edge, depends on Gin: the packages below
//     it work on plain values (the engine on engine.Request; server/auth's
//     token and JWKS handlers are net/http, which the server mounts on its
//     router), so none of them ties itself to one router.
//   - The server packages go one way: server (the HTTP edge) uses
//     server/batch, server/storefront and server/auth, which stand side by
//     side and use server/engine, which uses none of them: nothing under
//     server/batch, nor the batch's queue and records (storage/jobs).
//   - The packages below the batch pipeline (server/batch/chunk, which checks
//     and writes chunks, server/batch/stage, their staged form, and the
//     splitter) serve it and never reach it, the edge or the packages beside
//     it; the staged form knows nothing of the run that reads it.
//   - server/check, the checks of a request against the document, knows
//     kin-openapi and the error and document packages, nothing of the
//     engine, storage or HTTP servers; server/atomic, which serves atomic
//     operations, sits above the engine (which never uses it) beside
//     server/batch.
//   - server/batch/split, the splitter of batch bodies, knows nothing of
//     resources, storage or HTTP: it depends on the standard library and the
//     error, document and JSON guard packages only.
//   - server/... never depends on the main package at the module root; the
//     main package only runs server/cli, the command, which wires everything
//     together and sits on top: nothing else under server/ depends on
//     server/cli (its own packages below it aside), and it alone of the
//     packages below server reaches Gin (through server).
//   - server/cli/batchclient, `entityapi batch`, is a client of a running
//     server through its public API: it depends on the generated Go SDK, the
//     standard library, third-party packages other than Gin and
//     server/cli/flagargs (a standard-library leaf) only, never on the
//     engine, storage or the edge.
//
// A rule is about dependencies, not direct imports: storage/x importing a
// third-party package that imports gin breaks the first rule just as much as
// importing gin directly. A rule may name gateways, packages through which
// the subject may reach what lies behind them (their own rules check them):
// server/auth reaching storage through storage/authstore is allowed, through
// anything else it is not. Test-only imports are not checked.
//
// Run it from the repository root (any directory in the module works):
//
//	go run ./scripts/importcheck
//
// It runs `go list -deps -json ./...` once, prints one line per violation with
// a shortest import chain, and exits 1 if there is any; otherwise it prints
// "import rules: ok (N packages checked)", N being the module's own packages.
// If `go list` fails (for example on a package that is being written), it
// prints go list's error output and exits 1. Packages that do not exist yet
// are simply not checked.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// modulePath is the path of the module whose layering is checked.
const modulePath = "github.com/entityapi/entityapi"

// Package is the part of a `go list -json` record that the rules need.
type Package struct {
	ImportPath string
	Standard   bool     // part of the standard library
	Imports    []string // direct imports, after vendoring resolution
	Module     *struct{ Path string }
}

// Rule forbids the packages for which Subject is true to depend, directly or
// not, on any package for which Forbidden is true, except behind a package
// for which Gateway is true: the walk does not go through a gateway (nil:
// none).
type Rule struct {
	Name      string
	Subject   func(pkg string) bool
	Forbidden func(dep string, standard bool) bool
	Gateway   func(dep string) bool
}

// Violation is one forbidden dependency of one package.
type Violation struct {
	Rule  string
	Pkg   string   // the package breaking the rule
	Dep   string   // the forbidden package it reaches
	Chain []string // Pkg, ..., Dep: a shortest import chain
}

// within reports whether pkg is root or a package below it.
func within(pkg, root string) bool {
	return pkg == root || strings.HasPrefix(pkg, root+"/")
}

// Rules returns the layering rules for the module at path mod.
func Rules(mod string) []Rule {
	var (
		storage     = mod + "/storage"
		jobs        = mod + "/storage/jobs"
		authstore   = mod + "/storage/authstore"
		idemstore   = mod + "/storage/idemstore"
		secret      = mod + "/storage/secret"
		dialect     = mod + "/storage/dialect"
		gen         = mod + "/gen"
		genSDK      = mod + "/gen/sdk"
		server      = mod + "/server"
		serverAuth  = mod + "/server/auth"
		jsonapi     = mod + "/server/jsonapi"
		jsonguard   = mod + "/server/jsonguard"
		problem     = mod + "/server/problem"
		splitter    = mod + "/server/batch/split"
		engine      = mod + "/server/engine"
		batchPipe   = mod + "/server/batch"
		batchStage  = mod + "/server/batch/stage"
		batchChunk  = mod + "/server/batch/chunk"
		storefront  = mod + "/server/storefront"
		identity    = mod + "/server/identity"
		answercache = mod + "/server/answercache"
		webhooks    = mod + "/server/webhook"
		cli         = mod + "/server/cli"
		batchCLI    = mod + "/server/cli/batchclient"
		flagargs    = mod + "/server/cli/flagargs"
		checks      = mod + "/server/check"
		atomicOps   = mod + "/server/atomic"
		resource    = mod + "/server/resource"
		gin         = "github.com/gin-gonic/gin"
		kin         = "github.com/getkin/kin-openapi"
	)
	return []Rule{
		{
			Name:    "storage/... must not depend on gen/..., server/... or gin",
			Subject: func(p string) bool { return within(p, storage) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, gen) || within(d, server) || within(d, gin)
			},
		},
		{
			Name:      "storage/jobs must not depend on storage/authstore",
			Subject:   func(p string) bool { return within(p, jobs) },
			Forbidden: func(d string, _ bool) bool { return within(d, authstore) },
		},
		{
			Name:      "storage/authstore must not depend on storage/jobs",
			Subject:   func(p string) bool { return within(p, authstore) },
			Forbidden: func(d string, _ bool) bool { return within(d, jobs) },
		},
		{
			// The keys of Idempotency-Key are a record store beside storage,
			// below the other two (storage/jobs deletes the expired keys):
			// storage is its one way down.
			Name:      "storage/idemstore must depend on no storage package but storage",
			Subject:   func(p string) bool { return within(p, idemstore) },
			Forbidden: func(d string, _ bool) bool { return within(d, storage) && d != storage },
			Gateway:   func(d string) bool { return d == storage },
		},
		{
			// The dialects (storage/dialect/sqlite, .../postgres) hold what
			// differs between the databases and know nothing of storage:
			// what they share with it is in the leaf storage/dialect, so
			// storage imports them, never the reverse.
			Name:    "storage/dialect/... must depend on no storage package but storage/dialect",
			Subject: func(p string) bool { return within(p, dialect) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, storage) && d != dialect
			},
		},
		{
			// The record stores beside storage ask the database's
			// differences of storage (Features, NewJobClient), never a
			// dialect itself.
			Name:    "storage/jobs and storage/authstore may reach a dialect only through storage",
			Subject: func(p string) bool { return within(p, jobs) || within(p, authstore) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, dialect) && d != dialect
			},
			Gateway: func(d string) bool { return d == storage },
		},
		{
			Name:    "server/auth may reach storage/... only through storage/authstore (or storage/secret)",
			Subject: func(p string) bool { return within(p, serverAuth) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, storage) && !within(d, authstore) && !within(d, secret)
			},
			Gateway: func(d string) bool { return within(d, authstore) },
		},
		{
			Name:    "gen/... may depend on no package of this module but server/jsonapi",
			Subject: func(p string) bool { return within(p, gen) && !within(p, genSDK) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, mod) && d != jsonapi
			},
		},
		{
			Name:      "gen/sdk/... may depend on no package of this module",
			Subject:   func(p string) bool { return within(p, genSDK) },
			Forbidden: func(d string, _ bool) bool { return within(d, mod) && !within(d, genSDK) },
		},
		{
			Name:      "server/jsonapi must depend on the standard library only",
			Subject:   func(p string) bool { return p == jsonapi },
			Forbidden: func(_ string, standard bool) bool { return !standard },
		},
		{
			// Who is calling is a plain value server/auth produces and the
			// engine reads: a leaf, so that neither needs the other for it.
			Name:      "server/identity must depend on the standard library only",
			Subject:   func(p string) bool { return p == identity },
			Forbidden: func(_ string, standard bool) bool { return !standard },
		},
		{
			// The kept answers are bytes by key and generation: the edge
			// decides what is kept and reads the generation from storage,
			// so the cache needs neither (docs/answers.md).
			Name:      "server/answercache must depend on the standard library only",
			Subject:   func(p string) bool { return p == answercache },
			Forbidden: func(_ string, standard bool) bool { return !standard },
		},
		{
			// Only the HTTP edge, package server itself, speaks Gin: the
			// engine and every package below it work on plain values
			// (engine.Request, net/http), so they can be read, tested and
			// kept whatever serves the HTTP.
			Name:      "packages below server but server/cli must not depend on gin",
			Subject:   func(p string) bool { return within(p, server) && p != server && p != cli },
			Forbidden: func(d string, _ bool) bool { return within(d, gin) },
		},
		{
			// The splitter reports the structure of a batch body only: what
			// a resource is, where records are kept and how the request came
			// are the engine's, storage's and the edge's, so it can be fuzzed
			// and measured alone.
			Name:    "server/batch/split must depend on the standard library, server/problem, server/jsonapi and server/jsonguard only",
			Subject: func(p string) bool { return p == splitter },
			Forbidden: func(d string, standard bool) bool {
				return !standard && d != problem && d != jsonapi && d != jsonguard
			},
		},
		{
			// The engine is below the pipeline, the storefront and auth:
			// they use it, it uses none of them (nor the edge), so that each
			// can be changed without the engine knowing. The batch is all
			// server/batch/...'s, its queue and records too: the engine
			// serves it bulk writes of records (engine.Bulk), not chunks or jobs.
			Name:    "server/engine must not depend on server, server/batch/..., storage/jobs, server/storefront, server/auth, server/webhook or server/atomic",
			Subject: func(p string) bool { return p == engine },
			Forbidden: func(d string, _ bool) bool {
				return d == server || within(d, batchPipe) || within(d, jobs) || within(d, storefront) || within(d, serverAuth) || d == webhooks || d == atomicOps
			},
		},
		{
			// The checks of a request against the document run before the
			// engine serves it; the edge, the engine and the batch code use
			// them. They know kin-openapi and the problems they word, and
			// nothing of the engine, storage or the HTTP server, so that they
			// can be tested and measured alone.
			Name:    "server/check must depend on the standard library, kin-openapi, server/problem, server/jsonapi and server/resource only",
			Subject: func(p string) bool { return p == checks },
			Forbidden: func(d string, standard bool) bool {
				return !standard && !within(d, kin) && d != problem && d != jsonapi && d != resource
			},
			Gateway: func(d string) bool { return within(d, kin) },
		},
		{
			// The packages between the edge and the engine stand side by
			// side: the batch pipeline, the storefront, auth, the webhooks
			// and atomic operations (served above the engine, through its
			// entry points, as the edge serves single requests). None
			// reaches another, or the edge.
			Name: "server/batch, server/storefront, server/auth, server/webhook and server/atomic must not depend on each other or on server",
			Subject: func(p string) bool {
				return p == batchPipe || within(p, storefront) || within(p, serverAuth) || p == webhooks || p == atomicOps
			},
			Forbidden: func(d string, _ bool) bool {
				return d == server || d == batchPipe || within(d, storefront) || within(d, serverAuth) || d == webhooks || d == atomicOps
			},
		},
		{
			// What the pipeline uses to run a batch is below it: it never
			// reaches the pipeline, the edge or the packages beside it.
			Name:    "server/batch/... must not depend on server/batch, server, server/storefront or server/auth",
			Subject: func(p string) bool { return within(p, batchPipe) && p != batchPipe },
			Forbidden: func(d string, _ bool) bool {
				return d == server || d == batchPipe || within(d, storefront) || within(d, serverAuth)
			},
		},
		{
			// The staged form of a chunk is written by the upload and read
			// by the run: it knows nothing of how the run checks and writes.
			Name:      "server/batch/stage must not depend on server/batch/chunk",
			Subject:   func(p string) bool { return p == batchStage },
			Forbidden: func(d string, _ bool) bool { return d == batchChunk },
		},
		{
			Name:      "server/... must not depend on the main package",
			Subject:   func(p string) bool { return within(p, server) },
			Forbidden: func(d string, _ bool) bool { return d == mod },
		},
		{
			// The command sits on top: only the main package runs it.
			Name:      "nothing under server/ but server/cli/... may depend on server/cli",
			Subject:   func(p string) bool { return within(p, server) && !within(p, cli) },
			Forbidden: func(d string, _ bool) bool { return within(d, cli) },
		},
		{
			// The batch client is what a partner's program would be: the
			// SDK over HTTP, nothing of the server's inside (nor Gin: the
			// rule of the packages below server holds it too).
			Name:    "server/cli/batchclient may depend on no package of this module but gen/sdk/... and server/cli/flagargs",
			Subject: func(p string) bool { return within(p, batchCLI) },
			Forbidden: func(d string, _ bool) bool {
				return within(d, mod) && !within(d, genSDK) && d != flagargs
			},
		},
		{
			Name:      "server/cli/flagargs must depend on the standard library only",
			Subject:   func(p string) bool { return p == flagargs },
			Forbidden: func(_ string, standard bool) bool { return !standard },
		},
	}
}

// Check applies rules to every package of module mod found in pkgs, which must
// hold the whole dependency graph (as `go list -deps` gives it). It returns the
// violations, sorted, and how many packages of the module it checked.
//
// For each package it walks the import graph breadth-first and reports every
// forbidden package it meets with a shortest chain to it. It does not walk on
// through a forbidden package, so a package importing gin is reported once for
// gin, not once more for each of gin's own dependencies.
func Check(mod string, pkgs []Package, rules []Rule) ([]Violation, int) {
	graph := make(map[string]*Package, len(pkgs))
	var own []string
	for i := range pkgs {
		p := &pkgs[i]
		graph[p.ImportPath] = p
		if p.Module != nil && p.Module.Path == mod && !p.Standard {
			own = append(own, p.ImportPath)
		}
	}
	sort.Strings(own)
	standard := func(path string) bool {
		if path == "C" { // the cgo pseudo-package
			return true
		}
		p, ok := graph[path]
		return ok && p.Standard
	}

	var out []Violation
	for _, pkg := range own {
		for _, r := range rules {
			if !r.Subject(pkg) {
				continue
			}
			parent := map[string]string{pkg: ""}
			queue := []string{pkg}
			for len(queue) > 0 {
				cur := queue[0]
				queue = queue[1:]
				if cur != pkg && r.Forbidden(cur, standard(cur)) {
					out = append(out, Violation{Rule: r.Name, Pkg: pkg, Dep: cur, Chain: chain(parent, cur)})
					continue
				}
				if cur != pkg && r.Gateway != nil && r.Gateway(cur) {
					continue
				}
				p, ok := graph[cur]
				if !ok {
					continue
				}
				imports := append([]string(nil), p.Imports...)
				sort.Strings(imports)
				for _, imp := range imports {
					if _, seen := parent[imp]; !seen {
						parent[imp] = cur
						queue = append(queue, imp)
					}
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pkg != out[j].Pkg {
			return out[i].Pkg < out[j].Pkg
		}
		return out[i].Dep < out[j].Dep
	})
	return out, len(own)
}

// chain follows parent links back from dep to the start of the walk.
func chain(parent map[string]string, dep string) []string {
	var c []string
	for p := dep; p != ""; p = parent[p] {
		c = append(c, p)
	}
	for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
		c[i], c[j] = c[j], c[i]
	}
	return c
}

// short writes the module's own packages relative to the module root.
func short(mod, pkg string) string {
	if rel, ok := strings.CutPrefix(pkg, mod+"/"); ok {
		return rel
	}
	return pkg
}

// Format renders a violation as one line.
func (v Violation) Format(mod string) string {
	steps := make([]string, len(v.Chain))
	for i, p := range v.Chain {
		steps[i] = short(mod, p)
	}
	return fmt.Sprintf("%s reaches %s via %s (rule: %s)",
		short(mod, v.Pkg), short(mod, v.Dep), strings.Join(steps, " -> "), v.Rule)
}

// decode reads the stream of JSON objects that `go list -json` writes.
func decode(r io.Reader) ([]Package, error) {
	var pkgs []Package
	dec := json.NewDecoder(r)
	for {
		var p Package
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// moduleRoot returns the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module; run from the repository root")
	}
	return filepath.Dir(gomod), nil
}

func main() {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		os.Exit(1)
	}
	cmd := exec.Command("go", "list", "-deps",
		"-json=ImportPath,Standard,Imports,Module", "./...")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(stderr.Bytes())
		fmt.Fprintf(os.Stderr, "importcheck: go list -deps ./... failed: %v\n", err)
		os.Exit(1)
	}
	pkgs, err := decode(&stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		os.Exit(1)
	}
	violations, checked := Check(modulePath, pkgs, Rules(modulePath))
	for _, v := range violations {
		fmt.Println(v.Format(modulePath))
	}
	if len(violations) > 0 {
		fmt.Printf("import rules: %d violation(s) (%d packages checked)\n", len(violations), checked)
		os.Exit(1)
	}
	fmt.Printf("import rules: ok (%d packages checked)\n", checked)
}
