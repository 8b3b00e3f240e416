package pscerts

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"
	"time"
)

// TestWriteCluster: every task's certificate is the CA's, for the host of
// its address (a name, an IPv4 or an IPv6 address), names its task, serves
// and authenticates clients; keys are private to their owner.
func TestWriteCluster(t *testing.T) {
	dir := t.TempDir()
	cluster := map[string][]string{"chief": {"c.example:2222"}, "worker": {"10.0.0.2:2222", "[::1]:2223"}, "ps": {"p0:1"}}
	if err := WriteCluster(dir, cluster, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(dir + "/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	for job, addrs := range cluster {
		for i, addr := range addrs {
			f := TaskFiles(dir, job, i)
			kp, err := tls.LoadX509KeyPair(f.Cert, f.Key)
			if err != nil {
				t.Fatalf("%s %d: %v", job, i, err)
			}
			leaf, _ := x509.ParseCertificate(kp.Certificate[0])
			host := strings.Trim(addr[:strings.LastIndex(addr, ":")], "[]")
			for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
				if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
					t.Errorf("%s %d for %s: %v", job, i, host, err)
				}
			}
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "other.example"}); err == nil {
				t.Errorf("%s %d verifies for another host", job, i)
			}
			if want := job + ":" + string(rune('0'+i)); leaf.Subject.CommonName != want {
				t.Errorf("%s %d: common name %q, want %q", job, i, leaf.Subject.CommonName, want)
			}
			if st, _ := os.Stat(f.Key); st.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", f.Key, st.Mode().Perm())
			}
		}
	}
	if st, _ := os.Stat(dir + "/ca-key.pem"); st == nil || st.Mode().Perm() != 0o600 {
		t.Errorf("ca-key.pem: %v", st)
	}
}

// TestLoadCA: a CA written and read back issues certificates that verify
// against it; a key that is not the certificate's is an error.
func TestLoadCA(t *testing.T) {
	a, err := NewCA("a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewCA("b", time.Hour)
	ka, _ := a.KeyPEM()
	kb, _ := b.KeyPEM()
	back, err := LoadCA(a.CertPEM, ka)
	if err != nil {
		t.Fatal(err)
	}
	cp, _, err := back.Issue("ps:0", []string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(a.CertPEM)
	kp, err := tls.X509KeyPair(cp, mustKey(t, back))
	_ = kp
	if err == nil {
		t.Fatal("a certificate paired with the CA's key")
	}
	blk, _ := pem.Decode(cp)
	leaf, _ := x509.ParseCertificate(blk.Bytes)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("issued by the loaded CA: %v", err)
	}
	if _, err := LoadCA(a.CertPEM, kb); err == nil || !strings.Contains(err.Error(), "not the CA certificate's") {
		t.Errorf("mismatched key: %v", err)
	}
	if _, err := LoadCA([]byte("junk"), ka); err == nil {
		t.Error("junk certificate accepted")
	}
}

func mustKey(t *testing.T, ca *CA) []byte {
	k, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	return k
}
