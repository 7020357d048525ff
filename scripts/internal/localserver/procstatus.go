package localserver

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcStatus reads a "Name: N kB" field of /proc/<pid>/status, in kB:
// VmRSS (resident now) and VmHWM (its peak) are the memory figures the
// programs report, measured on the server process from outside so that the
// measurement costs the server nothing.
func ProcStatus(pid int, field string) (int64, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	kb, err := StatusField(string(raw), field)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return kb, nil
}

// StatusField reads a "Name:   N kB" line of a /proc/<pid>/status text (a
// count without unit, such as Threads, reads too).
func StatusField(status, field string) (int64, error) {
	for line := range strings.SplitSeq(status, "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in the process status", field)
}

// ResetPeak resets the process's VmHWM to its current RSS ("5" to
// /proc/<pid>/clear_refs, proc(5)), so that the next peak read is that of
// what came after.
func ResetPeak(pid int) error {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
}
