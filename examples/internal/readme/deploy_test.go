package readme

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gokeras/gokeras/distribute"
)

// deployDir holds the multi-worker example's deployment files.
const deployDir = "../../multi_worker/deploy/"

// checkExampleArgs checks a command line of the multi-worker example:
// every -flag is one the example defines, and -backup-dir is given (the
// preemption backup).
func checkExampleArgs(t *testing.T, where string, args []string) {
	t.Helper()
	flags, _ := exampleFlags(t, "../../multi_worker")
	var backup bool
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if _, err := strconv.ParseFloat(a, 64); err == nil {
			continue // a negative number
		}
		if !slices.Contains(flags, name) {
			t.Errorf("%s: -%s is not a flag of examples/multi_worker (it has %v)", where, name, flags)
		}
		backup = backup || name == "backup-dir"
	}
	if !backup {
		t.Errorf("%s: no -backup-dir: a preempted or failed job would start over", where)
	}
}

// mpiJob is the part of a Kubeflow MPIJob the test reads.
type mpiJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		SlotsPerWorker    int    `yaml:"slotsPerWorker"`
		MPIImplementation string `yaml:"mpiImplementation"`
		ReplicaSpecs      map[string]struct {
			Replicas int `yaml:"replicas"`
			Template struct {
				Spec struct {
					TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
					Containers                    []struct {
						Name         string   `yaml:"name"`
						Image        string   `yaml:"image"`
						Command      []string `yaml:"command"`
						VolumeMounts []struct {
							MountPath string `yaml:"mountPath"`
						} `yaml:"volumeMounts"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"mpiReplicaSpecs"`
	} `yaml:"spec"`
}

// The Kubernetes manifest is a valid MPIJob (kubeflow.org/v2beta1) of the
// example: mpirun starts workers x slotsPerWorker ranks of the image's
// binary with flags the example has, the backup directory is on a volume
// the workers mount, and the workers get time to back up after SIGTERM.
// The environment OpenMPI gives those ranks resolves to that cluster.
func TestDeployMPIJob(t *testing.T) {
	b, err := os.ReadFile(deployDir + "mpijob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job mpiJob
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(false)
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("mpijob.yaml: %v", err)
	}
	if job.APIVersion != "kubeflow.org/v2beta1" || job.Kind != "MPIJob" || job.Spec.MPIImplementation != "OpenMPI" {
		t.Fatalf("mpijob.yaml: %s %s (%s), want a kubeflow.org/v2beta1 MPIJob of OpenMPI", job.APIVersion, job.Kind, job.Spec.MPIImplementation)
	}
	launcher, worker := job.Spec.ReplicaSpecs["Launcher"], job.Spec.ReplicaSpecs["Worker"]
	if launcher.Replicas != 1 || len(launcher.Template.Spec.Containers) != 1 || len(worker.Template.Spec.Containers) != 1 {
		t.Fatalf("mpijob.yaml: want one launcher and one worker container")
	}
	lc, wc := launcher.Template.Spec.Containers[0], worker.Template.Spec.Containers[0]
	if lc.Image != wc.Image || lc.Image == "" {
		t.Errorf("launcher image %q, worker image %q: want the same", lc.Image, wc.Image)
	}
	cmd := lc.Command
	if len(cmd) < 3 || cmd[0] != "mpirun" {
		t.Fatalf("launcher command %v: want mpirun", cmd)
	}
	np := -1
	bin := -1
	for i, a := range cmd {
		if a == "-np" && i+1 < len(cmd) {
			np, _ = strconv.Atoi(cmd[i+1])
		}
		if strings.HasSuffix(a, "/multi_worker") && bin < 0 {
			bin = i
		}
	}
	slots := max(job.Spec.SlotsPerWorker, 1)
	if np != worker.Replicas*slots || np < 2 {
		t.Errorf("mpirun -np %d, but %d workers x %d slots", np, worker.Replicas, slots)
	}
	if bin < 0 {
		t.Fatalf("launcher command %v does not run the multi_worker binary", cmd)
	}
	args := cmd[bin+1:]
	checkExampleArgs(t, "mpijob.yaml", args)
	backup := args[slices.Index(args, "-backup-dir")+1]
	var mounted bool
	for _, m := range wc.VolumeMounts {
		mounted = mounted || strings.HasPrefix(backup, strings.TrimSuffix(m.MountPath, "/")+"/")
	}
	if !mounted {
		t.Errorf("-backup-dir %s is on no volume the workers mount: the backup would die with the pod", backup)
	}
	if g := worker.Template.Spec.TerminationGracePeriodSeconds; g < 30 {
		t.Errorf("workers' terminationGracePeriodSeconds %d: too short to back up after SIGTERM", g)
	}
	for rank := range np {
		env := map[string]string{
			"OMPI_COMM_WORLD_RANK": fmt.Sprint(rank), "OMPI_COMM_WORLD_SIZE": fmt.Sprint(np),
			"OMPI_COMM_WORLD_LOCAL_RANK": fmt.Sprint(rank % slots), "OMPI_COMM_WORLD_LOCAL_SIZE": fmt.Sprint(slots),
		}
		checkResolves(t, "mpijob.yaml", env, rank, np)
	}
}

// checkResolves resolves the cluster from env and checks rank, size and
// the chief.
func checkResolves(t *testing.T, where string, env map[string]string, rank, size int) {
	t.Helper()
	r, err := distribute.ResolveClusterFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("%s: rank %d's environment: %v", where, rank, err)
	}
	if r.Rank() != rank || r.WorldSize() != size || r.IsChief() != (rank == 0) {
		t.Errorf("%s: rank %d resolves (%s) to rank %d of %d, chief %v", where, rank, r.Name(), r.Rank(), r.WorldSize(), r.IsChief())
	}
}

// The Slurm batch script is valid bash, asks for nodes x tasks per node
// ranks, sends SIGTERM before the time limit, runs the example with its
// flags under srun, and the environment srun gives each task resolves to
// that cluster.
func TestDeploySlurm(t *testing.T) {
	path := deployDir + "slurm.sbatch"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command(bash, "-n", path).CombinedOutput(); err != nil {
			t.Fatalf("bash -n %s: %v\n%s", path, err, out)
		}
	}
	opts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#SBATCH --([a-z-]+)(?:=(\S+))?`).FindAllStringSubmatch(string(b), -1) {
		opts[m[1]] = m[2]
	}
	nodes, err1 := strconv.Atoi(opts["nodes"])
	perNode, err2 := strconv.Atoi(opts["ntasks-per-node"])
	if err1 != nil || err2 != nil || nodes*perNode < 2 {
		t.Fatalf("#SBATCH --nodes=%q --ntasks-per-node=%q: want two or more ranks", opts["nodes"], opts["ntasks-per-node"])
	}
	if sig := opts["signal"]; !strings.HasPrefix(sig, "TERM@") {
		t.Errorf("#SBATCH --signal=%q: want TERM@<seconds>, the workers' notice to back up", sig)
	}
	if _, ok := opts["requeue"]; !ok {
		t.Error("no #SBATCH --requeue: a preempted job would not come back")
	}
	var srun []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "srun" {
			srun = f
		}
	}
	bin := slices.IndexFunc(srun, func(a string) bool { return strings.HasSuffix(a, "/multi_worker") })
	if bin < 0 {
		t.Fatalf("no srun line running ./multi_worker in %s", path)
	}
	checkExampleArgs(t, "slurm.sbatch", srun[bin+1:])
	size := nodes * perNode
	for rank := range size {
		env := map[string]string{
			"SLURM_PROCID": fmt.Sprint(rank), "SLURM_NTASKS": fmt.Sprint(size), "SLURM_LOCALID": fmt.Sprint(rank % perNode),
			"SLURM_JOB_NODELIST": fmt.Sprintf("node[1-%d]", nodes), "SLURM_TASKS_PER_NODE": fmt.Sprintf("%d(x%d)", perNode, nodes),
		}
		checkResolves(t, "slurm.sbatch", env, rank, size)
	}
}

// The image builds the example with the mpi tag and ships OpenMPI and ssh,
// which the MPI Operator's launcher uses.
func TestDeployDockerfile(t *testing.T) {
	b, err := os.ReadFile(deployDir + "Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"go build -tags mpi", "./examples/multi_worker", "openmpi-bin", "openssh-server", "/usr/local/bin/multi_worker"} {
		if !strings.Contains(s, want) {
			t.Errorf("Dockerfile: no %q", want)
		}
	}
	if !strings.Contains(s, "golang:1.26") {
		t.Error("Dockerfile: the build stage is not Go 1.26 (go.mod's)")
	}
}
