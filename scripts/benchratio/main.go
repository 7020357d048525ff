// Command benchratio reads `go test -bench` output and prints, for each request
// benchmark and database, its rate beside the rate of the bare handler that
// writes the same bytes, and their ratio: the comparison DESIGN.md §11 asks for
// (goal: a third of the bare handler's rate or better).
//
// Usage: go test ./server -run '^$' -bench . | go run ./scripts/benchratio
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
)

// pairs maps a benchmark to the bare handler it is compared with.
var pairs = map[string]string{
	"GetOne":          "BareHandler",
	"GetList":         "BareHandlerList",
	"ContactsInclude": "BareHandlerContacts",
	"GetOneHTTP":      "BareHandlerHTTP",
}

var line = regexp.MustCompile(`^Benchmark(\w+)/(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

func main() {
	nsPerOp := map[string][]float64{} // "name/dialect" -> runs
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Println(sc.Text())
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			ns, _ := strconv.ParseFloat(m[3], 64)
			nsPerOp[m[1]+"/"+m[2]] = append(nsPerOp[m[1]+"/"+m[2]], ns)
		}
	}
	var rows []string
	for key := range nsPerOp {
		rows = append(rows, key)
	}
	sort.Strings(rows)
	fmt.Printf("\n%-28s %12s %14s %8s\n", "benchmark", "req/s", "bare req/s", "ratio")
	for _, key := range rows {
		name, dialect := split(key)
		bare, ok := pairs[name]
		if !ok {
			continue
		}
		runs, bareRuns := nsPerOp[key], nsPerOp[bare+"/"+dialect]
		if len(bareRuns) == 0 {
			continue
		}
		rate, bareRate := 1e9/median(runs), 1e9/median(bareRuns)
		fmt.Printf("%-28s %12.0f %14.0f %8.3f\n", key, rate, bareRate, rate/bareRate)
	}
}

func split(key string) (string, string) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return key, ""
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
