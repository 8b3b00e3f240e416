// Command pscerts makes the TLS files of a parameter-server cluster
// (distribute.ClusterTLS, docs/security.md): a cluster CA and, for every
// task of the cluster, a certificate for the host of its address, whose
// subject is the task ("worker:1"), and its key.
//
//	go run ./tools/pscerts -out certs -cluster '{"chief": ["c:2222"], "worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"]}'
//
// writes certs/ca.pem, certs/ca-key.pem (keep it off the cluster's
// machines) and certs/<job>-<index>.pem and -key.pem. Give each task
// GOKERAS_PS_TLS_CA=certs/ca.pem, GOKERAS_PS_TLS_CERT=certs/worker-1.pem,
// GOKERAS_PS_TLS_KEY=certs/worker-1-key.pem (its own). -ca-cert and -ca-key
// issue with an existing CA (a task added later); -cluster may also be
// the whole TF_CONFIG.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gokeras/gokeras/internal/pscerts"
)

func main() {
	out := flag.String("out", "certs", "directory to write the files into")
	cluster := flag.String("cluster", "", `the cluster, as TF_CONFIG's "cluster" (or the whole TF_CONFIG): {"chief": ["host:port"], "worker": [...], "ps": [...]}`)
	days := flag.Int("days", 365, "days the certificates are valid")
	caCert := flag.String("ca-cert", "", "issue with this CA certificate (PEM) instead of making a new CA")
	caKey := flag.String("ca-key", "", "the key of -ca-cert")
	flag.Parse()
	if err := run(*out, *cluster, *days, *caCert, *caKey); err != nil {
		fmt.Fprintln(os.Stderr, "pscerts:", err)
		os.Exit(1)
	}
}

func run(out, cluster string, days int, caCert, caKey string) error {
	if cluster == "" {
		return fmt.Errorf("-cluster is required")
	}
	if days < 1 || days > 100*365 {
		return fmt.Errorf("-days %d out of range", days)
	}
	var whole struct {
		Cluster map[string][]string `json:"cluster"`
	}
	spec := map[string][]string{}
	if err := json.Unmarshal([]byte(cluster), &whole); err == nil && whole.Cluster != nil {
		spec = whole.Cluster
	} else if err := json.Unmarshal([]byte(cluster), &spec); err != nil {
		return fmt.Errorf("-cluster: %w", err)
	}
	var ca *pscerts.CA
	if caCert != "" || caKey != "" {
		cp, err := os.ReadFile(caCert)
		if err != nil {
			return err
		}
		kp, err := os.ReadFile(caKey)
		if err != nil {
			return err
		}
		if ca, err = pscerts.LoadCA(cp, kp); err != nil {
			return err
		}
	}
	if err := pscerts.WriteCluster(out, spec, ca, time.Duration(days)*24*time.Hour); err != nil {
		return err
	}
	fmt.Printf("wrote the cluster's TLS files into %s\n", out)
	return nil
}
