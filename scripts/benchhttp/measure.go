package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// The names of the systems in the table.
const (
	sysService  = "service"
	sysBaseline = "baseline"
	sysBytes    = "bytes floor"
	sysDB       = "DB floor"
	sysWrite    = "write floor"
	sysInsert   = "INSERT floor"
	sysCopy     = "COPY floor"
	// The floors that also record the change events the service records
	// (issue 19), in the same transaction as the rows.
	sysWriteEvent  = "write + event floor"
	sysInsertEvent = "INSERT + event floor"
	sysCopyEvent   = "COPY + event floor"
)

// system is one thing a target is measured on: a service or a floor.
type system struct {
	name  string
	base  string
	svc   *service   // a service (for its /metrics), nil for a floor
	ids   []string   // the accounts PATCH goes through
	token string     // sent to floors too, so that every system reads the same request
	db    *floorDB   // the raw batch floors' database
	turn  *floorTurn // a write floor's database, set before each measurement (with ids)
}

// sample is one measurement of a target on a system.
type sample struct {
	rate       float64 // req/s, or rows/s for the batch
	p50, p99   float64 // ms (HTTP targets)
	allocs     float64 // per request (per row for the batch) on a service; -1 unknown
	statements float64 // likewise; -1 when the service does not count them
	failures   int64   // requests that did not get a 2xx answer, or socket errors
	cpuUS      float64 // CPU time per request of the serving process, µs (cpu.go); -1 unknown
}

// row is one target on one database: the samples of every system.
type row struct {
	database string
	target   target
	samples  map[string][]sample
}

// measureDatabase starts the services on fresh databases of kind database,
// seeds them, builds the floors, checks them and runs the rounds.
func measureDatabase(ctx context.Context, cfg config, wrkPath, tmp, database string, builds []build) (rows []row, err error) {
	dir := filepath.Join(tmp, database)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var services []*service
	var seeds []*seeded
	var databases []*localserver.Database // to drop once the services have stopped
	defer func() {
		for _, s := range services {
			s.stop(err != nil)
		}
		for _, db := range databases {
			if derr := db.Drop(); derr != nil && err == nil {
				err = derr
			}
		}
	}()
	names := cfg.targetList()
	starts := builds
	if pooled := pooledBuild(cfg, database, builds, names); pooled != nil {
		starts = append(slices.Clone(builds), *pooled)
	}
	for _, b := range starts {
		dbURL := ""
		if database == "postgres" {
			db, err := localserver.CreateDatabase(ctx, cfg.postgres, "-postgres-admin (TEST_DATABASE_URL)", "entityapi_benchhttp_")
			if err != nil {
				return nil, err
			}
			databases = append(databases, db)
			dbURL = db.URL
			if b.pooled {
				if dbURL, err = pooledURL(cfg.pooler, db.Name); err != nil {
					return nil, err
				}
			}
		}
		progress("%s: starting %s", database, b.name)
		svc, err := startService(ctx, b, filepath.Join(dir, strings.ReplaceAll(b.name, " ", "-")), dbURL)
		if err != nil {
			return nil, err
		}
		services = append(services, svc)
		s, err := seed(ctx, svc)
		if err != nil {
			return nil, err
		}
		if cfg.scale > 0 {
			if err := grow(ctx, svc, cfg.scale); err != nil {
				return nil, err
			}
		}
		seeds = append(seeds, s)
	}
	fdb, err := openFloorDB(ctx, services[0].dbURL, services[0].sqlitePath())
	if err != nil {
		return nil, fmt.Errorf("floor database: %w", err)
	}
	defer fdb.close()
	growingDBs, err := growingFloorDBs(ctx, fdb, services, names)
	if err != nil {
		return nil, err
	}
	// The accounts of each of growingDBs, in its order, which PATCH's
	// floors update when that database's turn comes.
	growingIDs := [][]string{seeds[0].accounts}
	for i, svc := range services[1:] {
		if svc.name != sysPooled && len(growingIDs) < len(growingDBs) {
			growingIDs = append(growingIDs, seeds[i+1].accounts)
		}
	}
	defer func() {
		for _, d := range growingDBs[1:] {
			d.close()
		}
	}()
	turns := 0 // the measurements of floors that write so far: each takes the next database

	systemsOf := map[string][]system{}
	var floors []*floorServer
	defer func() {
		for _, f := range floors {
			f.close()
		}
	}()
	throughPooler := pooledTargets(names)
	for _, name := range names {
		t := *targetByName(name)
		var systems []system
		for i, svc := range services {
			if svc.name == sysPooled && !throughPooler[name] {
				continue
			}
			systems = append(systems, system{name: svc.name, base: svc.base, svc: svc, ids: seeds[i].accounts, token: svc.token})
		}
		floor := func(name string, h http.Handler, turn *floorTurn) error {
			f, err := startFloor(h)
			if err != nil {
				return err
			}
			floors = append(floors, f)
			systems = append(systems, system{name: name, base: f.base, ids: seeds[0].accounts, token: services[0].token, turn: turn})
			return nil
		}
		switch t.kind {
		case readTarget:
			body, header, err := services[0].api(ctx, http.MethodGet, t.uri, nil, http.StatusOK)
			if err != nil {
				return nil, err
			}
			if err := floor(sysBytes, bytesHandler(header.Get("Content-Type"), body), nil); err != nil {
				return nil, err
			}
			if err := floor(sysDB, dbHandler(t, fdb), nil); err != nil {
				return nil, err
			}
		case writeTarget:
			// Each floor its own turn: the two are measured one after the
			// other, each on the next database.
			write, writeEvent := newFloorTurn(fdb), newFloorTurn(fdb)
			if err := floor(sysWrite, writeHandler(t, write, false), write); err != nil {
				return nil, err
			}
			if err := floor(sysWriteEvent, writeHandler(t, writeEvent, true), writeEvent); err != nil {
				return nil, err
			}
		case batchTarget:
			systems = append(systems, system{name: sysInsert, db: fdb}, system{name: sysInsertEvent, db: fdb})
			if database == "postgres" {
				systems = append(systems, system{name: sysCopy, db: fdb}, system{name: sysCopyEvent, db: fdb})
			}
		}
		systemsOf[name] = systems
	}
	for _, name := range names {
		if err := checkFloor(ctx, *targetByName(name), services[0], systemsOf[name], seeds[0]); err != nil {
			return nil, fmt.Errorf("%s: the floor does not do the service's work: %w", name, err)
		}
	}
	progress("%s: floors checked against the service's documents", database)

	w := &wrkRunner{path: wrkPath, dir: dir, connections: cfg.connections, threads: cfg.threads}
	samples := map[string]map[string][]sample{}
	for _, name := range names {
		samples[name] = map[string][]sample{}
	}
	for round := range cfg.rounds {
		for _, name := range rotate(names, round) {
			t := *targetByName(name)
			for _, s := range rotate(systemsOf[name], round) {
				var sm sample
				var err error
				growing := s.db != nil || s.turn != nil
				if growing { // a floor that writes: the next database's turn
					next := turns % len(growingDBs)
					turns++
					if s.db != nil {
						s.db = growingDBs[next]
					} else {
						s.turn.set(growingDBs[next])
						s.ids = growingIDs[next]
					}
					releaseConns(growingDBs)
				}
				if t.kind == batchTarget {
					sm, err = measureBatch(ctx, cfg.batchRecords, round, s)
				} else {
					sm, err = measureHTTP(ctx, w, cfg, t, s)
				}
				if growing {
					releaseConns(growingDBs)
				}
				if err != nil {
					return nil, fmt.Errorf("%s on %s: %w", name, s.name, err)
				}
				progress("%s round %d/%d %-8s %-12s %10.0f/s  p50 %6.2f ms  p99 %7.2f ms  CPU %s µs/req  allocs %s  statements %s  failures %d  load %s",
					database, round+1, cfg.rounds, name, s.name, sm.rate, sm.p50, sm.p99, perUnit(sm.cpuUS), perUnit(sm.allocs),
					perUnit(sm.statements), sm.failures, loadAverage())
				samples[name][s.name] = append(samples[name][s.name], sm)
			}
		}
	}
	for _, name := range names {
		rows = append(rows, row{database: database, target: *targetByName(name), samples: samples[name]})
	}
	return rows, nil
}

// measureHTTP runs wrk against s for t: a warm-up, then the measurement
// between two reads of the service's counters.
func measureHTTP(ctx context.Context, w *wrkRunner, cfg config, t target, s system) (sample, error) {
	req := t.request(s.token, s.ids)
	if cfg.warmup > 0 {
		if _, err := w.run(ctx, s.base, req, cfg.warmup); err != nil {
			return sample{}, err
		}
	}
	var before, after counters
	var err error
	if s.svc != nil {
		if before, err = s.svc.counters(ctx); err != nil {
			return sample{}, err
		}
	}
	cpuBefore, err := processCPU(s.pidOf())
	if err != nil {
		return sample{}, err
	}
	res, err := w.run(ctx, s.base, req, cfg.duration)
	if err != nil {
		return sample{}, err
	}
	cpuAfter, err := processCPU(s.pidOf())
	if err != nil {
		return sample{}, err
	}
	sm := sample{rate: res.rate(), p50: float64(res.P50US) / 1000, p99: float64(res.P99US) / 1000,
		allocs: -1, statements: -1, failures: res.failures(), cpuUS: -1}
	if res.Requests > 0 {
		sm.cpuUS = (cpuAfter - cpuBefore) * 1e6 / float64(res.Requests)
	}
	if s.svc != nil {
		if after, err = s.svc.counters(ctx); err != nil {
			return sample{}, err
		}
		sm.allocs, sm.statements = perRequest(before, after, res.Requests)
	}
	return sm, nil
}

// perRequest divides the counters' growth by n (-1 where unknown).
func perRequest(before, after counters, n int64) (allocs, statements float64) {
	allocs, statements = -1, -1
	if n <= 0 {
		return
	}
	allocs = (after.mallocs - before.mallocs) / float64(n)
	if before.statements >= 0 && after.statements >= 0 {
		statements = (after.statements - before.statements) / float64(n)
	}
	return
}

func perUnit(v float64) string {
	if v < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

// rotate returns items starting at the k-th, wrapping around.
func rotate[T any](items []T, k int) []T {
	if len(items) == 0 {
		return nil
	}
	k %= len(items)
	return append(append([]T(nil), items[k:]...), items[:k]...)
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchhttp: "+format+"\n", args...)
}

// hostReplacements maps every system's base to one name, for comparing.
func hostReplacements(bases ...string) []string {
	var out []string
	for _, b := range bases {
		out = append(out, strings.TrimPrefix(b, "http://"), "HOST")
	}
	return out
}

// releaseConns closes the idle connections of the floors' PostgreSQL pools
// (those in use close when they are released). A floor that writes into
// another service's database holds up to postgresConns connections of a
// pool of its own; kept open beside the first service's pool and the
// services' own, they took PostgreSQL past its max_connections (100), and
// the baseline's requests failed ("sorry, too many clients already"). So
// a floor that adds rows starts and ends with no idle floor connections;
// the next measurement opens what it needs in its warm-up.
func releaseConns(dbs []*floorDB) {
	for _, d := range dbs {
		if d.pool != nil {
			d.pool.Reset()
		}
	}
}

// growingFloorDBs are the databases the floors that write take turns on
// (the batch floors and the write floors of POST and PATCH), each
// measurement of such a floor the next one: the first service's (fdb) and every
// other service's that is measured (not the pooled one's, which is the
// first service's). Written always into the first service's database, the
// batch floors' 200,000 rows a round grew it to three times the size of the
// baseline's, and its batch paid for the larger indexes: the same two builds
// measured 0.87 new/old one way round and 1.16 the other (docs/speed.md,
// "The batch on SQLite: thirty chunks a transaction"); the POST floors'
// rows leant the same way in the full table (docs/speed.md, "The batch on
// SQLite: one INSERT a run"). PATCH's floors, which updated the first
// service's accounts only, left its rows with their dead versions on
// PostgreSQL (PATCH read 0.73 new/old there with unchanged code); they now
// update the accounts of the database whose turn it is. In turn, the
// services' databases take the floors' writes about equally.
func growingFloorDBs(ctx context.Context, fdb *floorDB, services []*service, names []string) ([]*floorDB, error) {
	dbs := []*floorDB{fdb}
	if !slices.ContainsFunc(names, func(name string) bool { return name == "batch" || targetByName(name).kind == writeTarget }) {
		return dbs, nil
	}
	for _, svc := range services[1:] {
		if svc.name == sysPooled {
			continue
		}
		d, err := openFloorDB(ctx, svc.dbURL, svc.sqlitePath())
		if err != nil {
			for _, d := range dbs[1:] {
				d.close()
			}
			return nil, fmt.Errorf("floor database of %s: %w", svc.name, err)
		}
		dbs = append(dbs, d)
	}
	return dbs, nil
}
