package distribute

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sync"

	"github.com/gokeras/gokeras/internal/logging"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// The environment variables that give a task of a parameter-server
// cluster its TLS files (PEM), when the [ClusterTLS] option is not given:
// the cluster's CA certificate, this task's certificate, and its key.
const (
	EnvTLSCA   = "GOKERAS_PS_TLS_CA"
	EnvTLSCert = "GOKERAS_PS_TLS_CERT"
	EnvTLSKey  = "GOKERAS_PS_TLS_KEY"
	// EnvListen overrides the address a "ps" or "worker" task listens
	// on (see [ListenAddress]).
	EnvListen = "GOKERAS_PS_LISTEN"
)

// ClusterTLS makes every connection of the task mutual TLS (1.3): caFile
// is the PEM certificate of the cluster's CA, certFile and keyFile this
// task's certificate, signed by that CA, and its key. A task then accepts
// calls only from peers holding a certificate of the same CA, and only
// those its peer's task may make (the chief's certificate for Init,
// Shutdown, the optimizer's state and every call to a worker; a
// worker's or the chief's for pulls and pushes): the task is the
// certificate's subject common name, "chief:0", "worker:<i>" or
// "ps:<i>", and must be this task's. Servers are verified against their
// address's host (a DNS or IP subject alternative name). Without it the
// files come from $GOKERAS_PS_TLS_CA, $GOKERAS_PS_TLS_CERT and
// $GOKERAS_PS_TLS_KEY; with neither, the cluster talks without TLS and
// every task warns so on its standard error. Make a cluster's files with
// `go run ./tools/pscerts` (docs/security.md).
func ClusterTLS(caFile, certFile, keyFile string) ParameterServerOption {
	return func(c *psConfig) { c.tlsFiles = [3]string{caFile, certFile, keyFile} }
}

// ListenAddress makes a "ps" or "worker" task listen on addr instead of
// its address in the cluster spec (which is what peers dial): ":2222"
// for every interface, as TensorFlow's servers, where the spec's host is
// a name this machine cannot bind (a Kubernetes service). Without it,
// $GOKERAS_PS_LISTEN; with neither, the spec's address, so that a task
// never listens on interfaces the cluster does not use.
func ListenAddress(addr string) ParameterServerOption {
	return func(c *psConfig) { c.listen = addr }
}

// clusterTLS is a task's TLS material.
type clusterTLS struct {
	cert tls.Certificate
	pool *x509.CertPool
	task string // the certificate's task
}

// loadClusterTLS reads the task's TLS files (options first, then the
// environment); nil, nil when none are given.
func loadClusterTLS(cfg psConfig, taskType string, taskID int, lookup func(string) (string, bool)) (*clusterTLS, error) {
	files := cfg.tlsFiles
	from := "the ClusterTLS option"
	if files == [3]string{} {
		from = fmt.Sprintf("$%s, $%s and $%s", EnvTLSCA, EnvTLSCert, EnvTLSKey)
		for i, e := range []string{EnvTLSCA, EnvTLSCert, EnvTLSKey} {
			files[i], _ = lookup(e)
		}
	}
	if files == [3]string{} {
		return nil, nil
	}
	for i, what := range []string{"CA certificate", "certificate", "key"} {
		if files[i] == "" {
			return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS from %s: no %s file (give all three: the cluster's CA, this task's certificate and its key)", from, what)
		}
	}
	caPEM, err := os.ReadFile(files[0])
	if err != nil {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS CA %s holds no PEM certificate", files[0])
	}
	cert, err := tls.LoadX509KeyPair(files[1], files[2])
	if err != nil {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS certificate %s, key %s: %w", files[1], files[2], err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS certificate %s: %w", files[1], err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS certificate %s is not a client certificate of the CA %s: %w", files[1], files[0], err)
	}
	want := fmt.Sprintf("%s:%d", taskType, taskID)
	if leaf.Subject.CommonName != want {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: TLS certificate %s is task %q's, but this task is %s: give each task its own certificate", files[1], clip(leaf.Subject.CommonName), want)
	}
	return &clusterTLS{cert: cert, pool: pool, task: want}, nil
}

// serverCreds are the credentials of the task's service: TLS 1.3 with a
// client certificate of the cluster's CA required.
func (c *clusterTLS) serverCreds() credentials.TransportCredentials {
	return credentials.NewTLS(&tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{c.cert},
		ClientCAs:    c.pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	})
}

// clientCreds are the credentials of a connection to task (e.g. "ps:0"):
// its certificate must be of the cluster's CA, for its address's host,
// and that task's.
func (c *clusterTLS) clientCreds(task string) credentials.TransportCredentials {
	return credentials.NewTLS(&tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{c.cert},
		RootCAs:      c.pool,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("distribute: %s sent no certificate", task)
			}
			if got := cs.PeerCertificates[0].Subject.CommonName; got != task {
				return fmt.Errorf("distribute: the server at %s's address presents task %q's certificate", task, clip(got))
			}
			return nil
		},
	})
}

// creds returns the client credentials for task: TLS, or insecure.
func (s *ParameterServerStrategy) creds(task string) credentials.TransportCredentials {
	if s.tls == nil {
		return insecure.NewCredentials()
	}
	return s.tls.clientCreds(task)
}

var warnOnce sync.Once

// warnInsecure says, once per process, what a cluster without TLS
// exposes.
func warnInsecure(task, addr string) {
	warnOnce.Do(func() {
		logging.Warnf("distribute: ParameterServerStrategy %s (%s) runs WITHOUT TLS: any process that can reach the cluster's ports can read every variable (the model), overwrite them, set the optimizer, run the registered functions on the workers and shut every task down. Give each task a certificate of the cluster's CA ($%s, $%s, $%s or the ClusterTLS option; make them with `go run ./tools/pscerts`, see docs/security.md), or keep the cluster on a network only it can reach.",
			task, addr, EnvTLSCA, EnvTLSCert, EnvTLSKey)
	})
}
