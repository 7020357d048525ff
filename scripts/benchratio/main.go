// Command benchratio reads `go test -bench` output and prints, for each request
// benchmark and database, its rate beside the rate of the bare handler that
// writes the same bytes, and their ratio: the comparison docs/decisions.md §11 asks for
// (goal: a third of the bare handler's rate or better). For the batch
// benchmarks it prints their records/s beside the raw INSERT's and their ratio
// (goal: half of the raw rate or better). For BenchmarkBigRead it prints each
// request's time on SQLite beside PostgreSQL's (issue 15's goal: SQLite under
// a second and at most five times PostgreSQL).
//
// Usage: go test ./server -run '^$' -bench . | go run ./scripts/benchratio
package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// pairs maps a benchmark to the bare handler it is compared with (ns/op).
var pairs = map[string]string{
	"GetOne":          "BareHandler",
	"GetOneTraced":    "BareHandler",
	"GetList":         "BareHandlerList",
	"ContactsInclude": "BareHandlerContacts",
	"GetOneHTTP":      "BareHandlerHTTP",
}

// recordPairs maps a batch benchmark to the raw INSERT it is compared with
// (records/s), and goal is the ratio docs/decisions.md §11 asks for.
var recordPairs = map[string]string{
	"BatchAccounts100k": "RawInsert100k",
}

const recordsGoal = 0.5

var line = regexp.MustCompile(`^Benchmark(\w+)/(\w+)(?:-\d+)?\s+\d+\s+(.*)$`)

// metric is one "value unit" pair of a benchmark line, such as "123 ns/op".
var metric = regexp.MustCompile(`([\d.]+(?:[eE][+-]?\d+)?)\s+(\S+)`)

func main() {
	runs := map[string]map[string][]float64{} // unit -> "name/dialect" -> runs
	big := bigReads{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println(sc.Text())
		big.add(sc.Text())
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key := m[1] + "/" + m[2]
		for _, mm := range metric.FindAllStringSubmatch(m[3], -1) {
			v, err := strconv.ParseFloat(mm[1], 64)
			if err != nil {
				continue
			}
			if runs[mm[2]] == nil {
				runs[mm[2]] = map[string][]float64{}
			}
			runs[mm[2]][key] = append(runs[mm[2]][key], v)
		}
	}
	nsPerOp := runs["ns/op"]
	fmt.Printf("\n%-28s %12s %14s %8s\n", "benchmark", "req/s", "bare req/s", "ratio")
	for _, key := range slices.Sorted(maps.Keys(nsPerOp)) {
		name, dialect := split(key)
		bare, ok := pairs[name]
		if !ok {
			continue
		}
		bareRuns := nsPerOp[bare+"/"+dialect]
		if len(bareRuns) == 0 {
			continue
		}
		rate, bareRate := 1e9/median(nsPerOp[key]), 1e9/median(bareRuns)
		fmt.Printf("%-28s %12.0f %14.0f %8.3f\n", key, rate, bareRate, rate/bareRate)
	}
	printRecords(runs["records/s"])
	big.print()
}

// printRecords prints the batch benchmarks' records/s beside their raw
// INSERT's, when the input has any.
func printRecords(records map[string][]float64) {
	var rows []string
	for key := range records {
		if name, _ := split(key); recordPairs[name] != "" {
			rows = append(rows, key)
		}
	}
	if len(rows) == 0 {
		return
	}
	sort.Strings(rows)
	fmt.Printf("\n%-28s %12s %14s %8s %6s\n", "benchmark", "records/s", "raw records/s", "ratio", "goal")
	for _, key := range rows {
		name, dialect := split(key)
		raw := records[recordPairs[name]+"/"+dialect]
		if len(raw) == 0 {
			fmt.Printf("%-28s %12.0f %14s\n", key, median(records[key]), "-")
			continue
		}
		rate, rawRate := median(records[key]), median(raw)
		verdict := "met"
		if rate/rawRate < recordsGoal {
			verdict = "missed"
		}
		fmt.Printf("%-28s %12.0f %14.0f %8.3f %6.2f %s\n", key, rate, rawRate, rate/rawRate, recordsGoal, verdict)
	}
}

func split(key string) (string, string) {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return key, ""
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
