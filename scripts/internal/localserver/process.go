package localserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ReadyAfter bounds the wait for /readyz: migrations and demo data on a fresh
// database take a while.
const ReadyAfter = 3 * time.Minute

// logTail is how much of the server's log a failure shows: its last errors,
// not a whole run's requests.
const logTail = 4000

// Process is a running `entityapi serve`, its output in a log file that is
// shown only when the measurement fails.
type Process struct {
	name    string // "server", "service", "baseline": in errors and the log's header
	base    string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited
	waitErr error         // why it exited, set before done is closed
	logPath string
}

// Start starts bin with args (which should listen on addr) writing its
// output to logPath, with env (KEY=VALUE) added to this process's
// environment. It does not wait for it to be ready: see AwaitReady.
func Start(name, bin string, args []string, addr, logPath string, env ...string) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	p := &Process{name: name, base: "http://" + addr, done: make(chan struct{}), logPath: logPath}
	p.cmd = exec.Command(bin, args...)
	if len(env) > 0 {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Base is the server's URL, http://127.0.0.1:PORT.
func (p *Process) Base() string { return p.base }

// PID is the server's process id, for ProcStatus.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// AwaitReady waits until /readyz answers 200, failing at once when the
// process exits (a bad flag or database) and after ReadyAfter.
func (p *Process) AwaitReady(ctx context.Context, client *http.Client) error {
	deadline := time.Now().Add(ReadyAfter)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/readyz", nil)
		if res, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("the %s exited: %v", p.name, p.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %s was not ready after %s", p.name, ReadyAfter)
		}
	}
}

// Stop ends the server with SIGTERM, as a user's supervisor would, and with
// SIGKILL after 20 s; after a failure it prints the end of the server's log
// on stderr, where the cause usually is. It may be called after the process
// has exited on its own.
func (p *Process) Stop(failed bool) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	if !failed {
		return
	}
	raw, err := os.ReadFile(p.logPath)
	if err != nil {
		return
	}
	if len(raw) > logTail {
		raw = raw[len(raw)-logTail:]
	}
	fmt.Fprintf(os.Stderr, "--- end of the %s log ---\n%s\n", p.name, raw)
}
