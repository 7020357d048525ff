package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Requests per second on this 2-core machine move with whatever else runs:
// wrk, the floors and the service share the cores, and a busy neighbour
// moves every figure of a run by tens of percent. The processor time a
// process spends per request moves far less, since time spent waiting for
// a core is not counted. The table therefore also shows each system's CPU
// time per request: the service's process (read from outside, so the
// reading costs it nothing) and the floors' (this process, which does
// nothing else while wrk runs). Neither counts wrk, the kernel's work for
// wrk, or PostgreSQL's own processes, which both sides use alike.

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on
// every Linux architecture Go builds for).
const userHZ = 100

// processCPU is the user and system CPU time the process pid has used so
// far, in seconds.
func processCPU(pid int) (float64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return statCPU(string(raw))
}

// statCPU reads utime and stime (the 14th and 15th fields) from a
// /proc/<pid>/stat line. The second field, the command name in
// parentheses, may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func statCPU(stat string) (float64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc stat: no command name in %.200q", stat)
	}
	f := strings.Fields(stat[end+1:]) // f[0] is the 3rd field, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name", len(f))
	}
	var ticks float64
	for _, s := range f[11:13] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: %w", err)
		}
		ticks += float64(v)
	}
	return ticks / userHZ, nil
}

// pidOf is the process that answers a system's requests: the service's,
// or this one for a floor.
func (s system) pidOf() int {
	if s.svc != nil {
		return s.svc.proc.PID()
	}
	return os.Getpid()
}
