package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/pscerts"
)

// task is one process of a local cluster.
type task struct {
	typ  string
	id   int
	addr string
	cmd  *exec.Cmd
	done chan error
}

func (t *task) String() string { return fmt.Sprintf("%s %d", t.typ, t.id) }

// parseLaunch reads "workers=2,ps=1".
func parseLaunch(spec string) (workers, ps int, err error) {
	workers, ps = -1, -1
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, perr := strconv.Atoi(v)
		if !ok || perr != nil || n < 0 || n > 64 {
			return 0, 0, fmt.Errorf("-launch-local %q: %q is not name=count (count 0 to 64)", spec, kv)
		}
		switch k {
		case "workers", "worker":
			workers = n
		case "ps":
			ps = n
		default:
			return 0, 0, fmt.Errorf("-launch-local %q: unknown task type %q (want workers and ps)", spec, k)
		}
	}
	if workers < 0 || ps < 0 {
		return 0, 0, fmt.Errorf("-launch-local %q: give both, e.g. workers=2,ps=1", spec)
	}
	return workers, ps, nil
}

// freeAddrs returns n loopback addresses whose ports were free a moment
// ago (all held open together, so they differ).
func freeAddrs(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}

// withoutLaunch drops -launch-local and its value from args.
func withoutLaunch(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if name == "launch-local" {
			i++ // its value
			continue
		}
		if strings.HasPrefix(name, "launch-local=") && strings.HasPrefix(a, "-") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// prefixWriter writes each whole line it is given to w after prefix.
type prefixWriter struct {
	w      io.Writer
	mu     *sync.Mutex
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		p.mu.Lock()
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf[:i])
		p.mu.Unlock()
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// launchLocal starts a chief, the workers and the parameter servers of a
// cluster on this machine, each a child process running this program with
// args (less -launch-local) and its TF_CONFIG, on free loopback ports;
// with useTLS each task also gets its own certificate of a fresh cluster
// CA (made in a temporary directory, removed at the end) through
// $GOKERAS_PS_TLS_CA, $GOKERAS_PS_TLS_CERT and $GOKERAS_PS_TLS_KEY.
// The chief's output passes through; the others' lines are prefixed with
// their task. It returns the chief's exit status once every task has
// ended: the chief shuts the cluster down when it is done, and tasks still
// running 20 s after it are killed. With verbose it ends with every
// task's peak RSS on stderr.
func launchLocal(spec string, args []string, useTLS, verbose bool) int {
	workers, nps, err := parseLaunch(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parameter_server:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "parameter_server: launch:", err)
		return 1
	}
	addrs, err := freeAddrs(1 + workers + nps)
	if err != nil {
		fmt.Fprintln(os.Stderr, "parameter_server: launch: no free port:", err)
		return 1
	}
	cluster := map[string][]string{"chief": addrs[:1]}
	if workers > 0 {
		cluster["worker"] = addrs[1 : 1+workers]
	}
	if nps > 0 {
		cluster["ps"] = addrs[1+workers:]
	}
	var certs string
	if useTLS {
		if certs, err = os.MkdirTemp("", "gokeras-ps-certs-"); err != nil {
			fmt.Fprintln(os.Stderr, "parameter_server: launch:", err)
			return 1
		}
		defer os.RemoveAll(certs)
		if err := pscerts.WriteCluster(certs, cluster, nil, 7*24*time.Hour); err != nil {
			fmt.Fprintln(os.Stderr, "parameter_server: launch: making the cluster's certificates:", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "launch: mutual TLS with throwaway certificates in %s\n", certs)
	}
	// Servers first, then workers, then the chief (each waits for the
	// others anyway).
	var tasks []*task
	for i := range nps {
		tasks = append(tasks, &task{typ: "ps", id: i, addr: cluster["ps"][i]})
	}
	for i := range workers {
		tasks = append(tasks, &task{typ: "worker", id: i, addr: cluster["worker"][i]})
	}
	chief := &task{typ: "chief", id: 0, addr: addrs[0]}
	tasks = append(tasks, chief)
	childArgs := withoutLaunch(args)
	var outMu sync.Mutex
	for _, t := range tasks {
		tf, _ := json.Marshal(map[string]any{"cluster": cluster, "task": map[string]any{"type": t.typ, "index": t.id}})
		t.cmd = exec.Command(self, childArgs...)
		t.cmd.Env = append(os.Environ(), "TF_CONFIG="+string(tf))
		if useTLS {
			f := pscerts.TaskFiles(certs, t.typ, t.id)
			t.cmd.Env = append(t.cmd.Env, distribute.EnvTLSCA+"="+f.CA, distribute.EnvTLSCert+"="+f.Cert, distribute.EnvTLSKey+"="+f.Key)
		}
		t.cmd.SysProcAttr = childAttr()
		if t == chief {
			t.cmd.Stdout, t.cmd.Stderr = os.Stdout, os.Stderr
		} else {
			w := &prefixWriter{w: os.Stdout, mu: &outMu, prefix: "[" + t.String() + "] "}
			t.cmd.Stdout, t.cmd.Stderr = w, w
		}
		if err := t.cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "parameter_server: launch: %s: %v\n", t, err)
			killAll(tasks)
			return 1
		}
		outMu.Lock()
		fmt.Fprintf(os.Stderr, "launch: %s pid %d at %s\n", t, t.cmd.Process.Pid, t.addr)
		outMu.Unlock()
		t.done = make(chan error, 1)
		go func() { t.done <- t.cmd.Wait() }()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	var chiefErr error
	select {
	case chiefErr = <-chief.done:
	case s := <-sig:
		fmt.Fprintf(os.Stderr, "launch: %v: stopping every task\n", s)
		killAll(tasks)
		return 1
	}
	// The chief shut the cluster down; give the others time to return.
	deadline := time.After(20 * time.Second)
	for _, t := range tasks[:len(tasks)-1] {
		select {
		case err := <-t.done:
			if err != nil {
				fmt.Fprintf(os.Stderr, "launch: %s ended: %v\n", t, err)
			}
		case <-deadline:
			fmt.Fprintf(os.Stderr, "launch: %s still running 20 s after the chief ended: killed\n", t)
			t.cmd.Process.Kill()
			<-t.done
		}
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "launch: peak RSS %s\n", peakRSS(tasks))
	}
	if chiefErr != nil {
		var ee *exec.ExitError
		if errors.As(chiefErr, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// peakRSS lists the peak resident set size of every ended task, as its
// rusage says ("chief 0 412 MB, worker 0 380 MB, ..."; "?" where the
// system does not say).
func peakRSS(tasks []*task) string {
	var parts []string
	for _, t := range tasks {
		mb := "?"
		if t.cmd.ProcessState != nil {
			if b, ok := maxRSSBytes(t.cmd.ProcessState); ok {
				mb = fmt.Sprintf("%d MB", b>>20)
			}
		}
		parts = append(parts, t.String()+" "+mb)
	}
	return strings.Join(parts, ", ")
}

func killAll(tasks []*task) {
	for _, t := range tasks {
		if t.cmd != nil && t.cmd.Process != nil {
			t.cmd.Process.Kill()
		}
	}
}
