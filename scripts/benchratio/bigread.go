package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
)

// bigReadLine is a BenchmarkBigRead result: database, request, ns/op.
var bigReadLine = regexp.MustCompile(`^BenchmarkBigRead/(\w+)/(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

// Goals of issue 15 item 9 for the large reads: SQLite under a second, and at
// most this many times PostgreSQL's time.
const (
	bigReadSQLiteGoal = 1.0
	bigReadRatioGoal  = 5.0
)

// bigReads collects BenchmarkBigRead's runs: request -> database -> seconds.
type bigReads map[string]map[string][]float64

func (b bigReads) add(text string) {
	m := bigReadLine.FindStringSubmatch(text)
	if m == nil {
		return
	}
	ns, err := strconv.ParseFloat(m[3], 64)
	if err != nil {
		return
	}
	if b[m[2]] == nil {
		b[m[2]] = map[string][]float64{}
	}
	b[m[2]][m[1]] = append(b[m[2]][m[1]], ns/1e9)
}

// print shows each request's median time on SQLite beside PostgreSQL's, and
// whether the goals are met, when the input has BenchmarkBigRead results.
func (b bigReads) print() {
	if len(b) == 0 {
		return
	}
	fmt.Printf("\n%-44s %10s %12s %8s\n", "BigRead request", "SQLite s", "PostgreSQL s", "ratio")
	for _, name := range slices.Sorted(maps.Keys(b)) {
		sq, pg := b[name]["sqlite"], b[name]["postgres"]
		if len(sq) == 0 {
			continue
		}
		s := median(sq)
		if len(pg) == 0 {
			fmt.Printf("%-44s %10.3f %12s\n", name, s, "-")
			continue
		}
		p := median(pg)
		verdict := "met"
		if s > bigReadSQLiteGoal || s/p > bigReadRatioGoal {
			verdict = "missed"
		}
		fmt.Printf("%-44s %10.3f %12.3f %8.2f %s (goal: SQLite under %.0f s and %.0fx PostgreSQL)\n",
			name, s, p, s/p, verdict, bigReadSQLiteGoal, bigReadRatioGoal)
	}
}
