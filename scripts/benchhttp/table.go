package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// report is everything the table says.
type report struct {
	command    string
	machine    string
	date       string
	goVersion  string
	loadBefore string
	loadAfter  string
	baseline   string
	config     config
	rows       []row
	// traceExports counts the trace exports the sink received (-traced).
	traceExports int
}

// median of vs (0 for none); the mean of the middle two for an even count.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// stat is the median of one field of a system's samples, -1 when any is unknown.
func stat(samples []sample, field func(sample) float64) float64 {
	if len(samples) == 0 {
		return -1
	}
	vs := make([]float64, len(samples))
	for i, s := range samples {
		if vs[i] = field(s); vs[i] < 0 {
			return -1
		}
	}
	return median(vs)
}

func rateOf(s sample) float64 { return s.rate }

func failuresOf(samples []sample) int64 {
	var n int64
	for _, s := range samples {
		n += s.failures
	}
	return n
}

// floorOf names the floor a target's goal is measured against.
func floorOf(kind targetKind) string {
	switch kind {
	case writeTarget:
		return sysWrite
	case batchTarget:
		return sysInsert
	}
	return sysDB
}

// render prints the markdown table and what it was measured on.
func (r *report) render() string {
	var b strings.Builder
	baseline := r.baseline != ""
	service := "service"
	if r.config.traced {
		service = "service (traced)"
	}
	head := []string{"database", "target", service}
	if baseline {
		head = append(head, "baseline ("+r.baseline+")", "new/old")
	}
	head = append(head, "bytes floor", "DB / write / INSERT floor", "service / floor", "service / bytes floor",
		"goal", "met", "CPU µs/req", "floor CPU µs/req", "CPU floor / service", "allocs/req", "SQL/req", "p50 ms", "p99 ms")
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(head)) + "\n")
	for _, row := range r.rows {
		b.WriteString(r.renderRow(row, "", baseline))
		if row.target.bytesGoal > 0 && row.samples[sysBytes] != nil {
			b.WriteString(r.renderRow(row, sysBytes, baseline))
		}
		for _, other := range []string{sysWriteEvent, sysInsertEvent, sysCopy, sysCopyEvent, sysPooled} {
			if row.samples[other] != nil {
				b.WriteString(r.renderRow(row, other, baseline))
			}
		}
	}
	fmt.Fprintf(&b, "\nreq/s, or rows/s for the batch (allocs and SQL per row there); medians of %d rounds of %s (after %s of warm-up) "+
		"with wrk -c%d -t%d, targets and systems in rotating order; a floor is this process's net/http server on the loopback: "+
		"bytes = the service's captured answer, DB = the same queries prepared (pgx / database/sql) and encoding/json, "+
		"write = one INSERT/UPDATE ... RETURNING in a transaction, INSERT/COPY = the batch's rows straight into the table, "+
		"+ event = the same also recording the change events in the transaction (one INSERT per write, one INSERT ... SELECT per batch); "+
		"the batch floors also write the rows' audit rows, as the service does (on SQLite one INSERT ... SELECT more; on PostgreSQL the audit triggers "+
		"are in the schema and write the audit rows of every floor's writes, the single writes' too, as of the service's), "+
		"and the floors that write (the batch's, POST's and PATCH's) write into the database of each service measured "+
		"(with -baseline, the working tree's and the baseline's) in turn, one measurement each; "+
		"a line is FAILED when any request got a status of 400 or more or a socket error (wrk's counts). "+
		"A line through PgBouncer is the working tree's service on its own database reached through a PgBouncer in transaction mode "+
		"(--database-pooler transaction), in the service's columns, measured in the same rounds; its goal cell is its rate over the direct "+
		"service's (pooled / direct), and its CPU is the service's alone (PgBouncer's is not counted); failures of the service through "+
		"PgBouncer show on its lines only. "+
		"CPU µs/req is the user and system time of the process answering (the service's; the floors' is this process's) "+
		"per request, medians; CPU floor / service is their ratio, the share of the service's processor time a floor needs for "+
		"the same answers: it moves less with the machine's other load than requests per second do.\n\n",
		r.config.rounds, r.config.duration, r.config.warmup, r.config.connections, r.config.threads)
	fmt.Fprintf(&b, "- command: `%s`\n", r.command)
	fmt.Fprintf(&b, "- machine: %s; %s (the service built with it)\n", r.machine, r.goVersion)
	fmt.Fprintf(&b, "- date: %s\n", r.date)
	if r.config.scale > 0 {
		fmt.Fprintf(&b, "- data: the seed (%d accounts, %d contacts) grown by %s accounts and %s contacts (-scale)\n",
			seedAccounts, seedContacts, count(float64(r.config.scale)), count(float64(4*r.config.scale)))
	}
	fmt.Fprintf(&b, "- load average (1, 5, 15 min) before: %s; after: %s\n", r.loadBefore, r.loadAfter)
	if r.config.traced {
		fmt.Fprintf(&b, "- traced: the service exported every request's spans over OTLP/HTTP to a sink in this process (%d exports received)\n", r.traceExports)
	}
	return b.String()
}

// postRate is the service's rate of POST create account on database, 0
// when it was not measured: the keyed POST's line shows its own beside it.
func (r *report) postRate(database string) float64 {
	for _, row := range r.rows {
		if row.database == database && row.target.name == "post" {
			return stat(row.samples[sysService], rateOf)
		}
	}
	return 0
}

// copyEventGoal is the batch's goal against the COPY + event floor on
// PostgreSQL, insertEventGoal against the INSERT + event floor on SQLite
// (issue 34, item 3); elsewhere a line against an event floor has its
// target's goal.
const (
	copyEventGoal   = 0.9
	insertEventGoal = 0.8
)

// renderRow is one line: the target against its floor, or against other:
// the write + event or INSERT + event floor (the same goal), or COPY; or,
// with other sysPooled, the service through PgBouncer in the service's
// place, against the direct service (pooled / direct) as well as the floors.
func (r *report) renderRow(row row, other string, baseline bool) string {
	t := row.target
	floorName := floorOf(t.kind)
	label := t.label
	if t.kind == batchTarget {
		label = fmt.Sprintf(t.label, count(float64(r.config.batchRecords)))
	}
	switch other {
	case sysCopy:
		floorName, label = sysCopy, label+" against COPY"
	case sysCopyEvent:
		floorName, label = sysCopyEvent, label+" against the "+sysCopyEvent
	case sysWriteEvent, sysInsertEvent:
		floorName, label = other, label+" against the "+other
	case sysBytes:
		floorName, label = sysBytes, label+" (reference data, from memory) against the bytes floor"
	case sysPooled:
		label += " through PgBouncer"
	}
	svcName := sysService
	if other == sysPooled {
		svcName = sysPooled
	}
	svc := row.samples[svcName]
	rate := stat(svc, rateOf)
	floor := stat(row.samples[floorName], rateOf)
	cells := []string{row.database, label, count(rate)}
	if baseline && other == sysPooled {
		cells = append(cells, "-", "-") // the baseline is not measured through the pooler
	} else if baseline {
		old := stat(row.samples[sysBaseline], rateOf)
		cells = append(cells, count(old), ratio(rate, old))
	}
	bytesFloor := stat(row.samples[sysBytes], rateOf)
	cells = append(cells, count(bytesFloor), count(floor), ratio(rate, floor), ratio(rate, bytesFloor))
	want := t.goal
	switch other {
	case sysCopyEvent:
		want = copyEventGoal
	case sysInsertEvent:
		if row.database == "sqlite" {
			want = insertEventGoal
		}
	case sysBytes:
		want = t.bytesGoal
	}
	goal, met := fmt.Sprintf(">= %.1f", want), "-"
	if other == sysCopy {
		goal = "(1.0 possible)"
	} else if other == sysPooled {
		goal = "(pooled / direct " + ratio(rate, stat(row.samples[sysService], rateOf)) + ")"
	} else if t.goal == 0 {
		goal = "(no goal)"
		if post := r.postRate(row.database); post > 0 && other != sysWriteEvent {
			goal = "(keyed / POST " + ratio(rate, post) + ")"
		}
	} else if rate >= 0 && floor > 0 {
		met = "not met"
		if rate/floor >= want {
			met = "met"
		}
	}
	var failed []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range row.samples {
			if !yield(k) {
				return
			}
		}
	}) {
		if name == sysPooled && other != sysPooled {
			continue // the direct lines stay what they are without a pooler
		}
		if n := failuresOf(row.samples[name]); n > 0 {
			failed = append(failed, fmt.Sprintf("%s: %d failed requests", name, n))
		}
	}
	if len(failed) > 0 {
		met = "FAILED (" + strings.Join(failed, "; ") + ")"
	}
	cpuOf := func(s sample) float64 { return s.cpuUS }
	svcCPU, floorCPU := stat(svc, cpuOf), stat(row.samples[floorName], cpuOf)
	cells = append(cells, goal, met, amount(svcCPU, 1), amount(floorCPU, 1), ratio(floorCPU, svcCPU),
		amount(stat(svc, func(s sample) float64 { return s.allocs }), 0),
		amount(stat(svc, func(s sample) float64 { return s.statements }), 2))
	if t.kind == batchTarget {
		cells = append(cells, "-", "-")
	} else {
		cells = append(cells, amount(stat(svc, func(s sample) float64 { return s.p50 }), 2),
			amount(stat(svc, func(s sample) float64 { return s.p99 }), 2))
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// count formats a rate with thousands separators ("-" when unknown).
func count(v float64) string {
	if v < 0 {
		return "-"
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ratio(a, b float64) string {
	if a < 0 || b <= 0 {
		return "-"
	}
	return strconv.FormatFloat(a/b, 'f', 2, 64)
}

func amount(v float64, decimals int) string {
	if v < 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// describeMachine is the CPU count and model and the memory, from /proc.
func describeMachine() string {
	model := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for l := range strings.SplitSeq(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "unknown RAM"
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for l := range strings.SplitSeq(string(raw), "\n") {
			if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
				if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
					mem = fmt.Sprintf("%.1f GiB RAM", kb/(1<<20))
				}
			}
		}
	}
	return fmt.Sprintf("%d CPUs (nproc), %s, %s", runtime.NumCPU(), model, mem)
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
