// Package pscerts makes the TLS files of a gokeras parameter-server
// cluster (distribute.ClusterTLS): a cluster CA, and for each task a
// certificate whose subject common name is the task ("chief:0",
// "worker:1", "ps:0"), whose subject alternative names are the hosts of
// its address, valid for both server and client authentication, and an
// ECDSA P-256 key. tools/pscerts is its command; the parameter_server
// example's -launch-local makes throwaway ones with it.
package pscerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// CA is a cluster's certificate authority.
type CA struct {
	Cert    *x509.Certificate
	Key     *ecdsa.PrivateKey
	CertPEM []byte
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// NewCA makes a CA named name, valid for validFor from now.
func NewCA(name string, validFor time.Duration) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: name, Organization: []string{"gokeras parameter-server cluster"}},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(validFor),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// LoadCA reads a CA from its PEM certificate and key.
func LoadCA(certPEM, keyPEM []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return nil, errors.New("pscerts: the CA certificate is not a PEM CERTIFICATE")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pscerts: CA certificate: %w", err)
	}
	if !cert.IsCA {
		return nil, errors.New("pscerts: the CA certificate is not a CA's")
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, errors.New("pscerts: the CA key is not PEM")
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pscerts: CA key: %w", err)
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("pscerts: the CA key is not the CA certificate's")
	}
	return &CA{Cert: cert, Key: key, CertPEM: pem.EncodeToMemory(cb)}, nil
}

// KeyPEM returns the CA's key as PEM.
func (ca *CA) KeyPEM() ([]byte, error) { return keyPEM(ca.Key) }

func keyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// Issue makes the certificate and key of task ("worker:1") for hosts
// (names or IPs: the hosts of the task's address), valid for validFor.
func (ca *CA) Issue(task string, hosts []string, validFor time.Duration) (certPEM, keyPEMBytes []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	sn, err := serial()
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: task, Organization: []string{"gokeras parameter-server cluster"}},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(validFor),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, nil, err
	}
	kp, err := keyPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), kp, nil
}

// Files are the paths of one task's TLS files.
type Files struct {
	CA, Cert, Key string
}

// TaskFiles returns the paths WriteCluster gives task's files in dir.
func TaskFiles(dir, typ string, index int) Files {
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", typ, index))
	return Files{CA: filepath.Join(dir, "ca.pem"), Cert: base + ".pem", Key: base + "-key.pem"}
}

// WriteCluster writes, into dir (made 0700 if missing), the CA's
// certificate ca.pem (and, unless ca was given, its key ca-key.pem) and,
// for every task of cluster (job name to addresses, as TF_CONFIG's
// "cluster"), <job>-<index>.pem and <job>-<index>-key.pem for the host of
// its address; ca nil makes a new CA. Keys are written 0600.
func WriteCluster(dir string, cluster map[string][]string, ca *CA, validFor time.Duration) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if ca == nil {
		var err error
		if ca, err = NewCA("gokeras cluster CA", validFor); err != nil {
			return err
		}
		kp, err := ca.KeyPEM()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "ca-key.pem"), kp, 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), ca.CertPEM, 0o644); err != nil {
		return err
	}
	jobs := make([]string, 0, len(cluster))
	for j := range cluster {
		jobs = append(jobs, j)
	}
	sort.Strings(jobs)
	for _, job := range jobs {
		for i, addr := range cluster[job] {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return fmt.Errorf("pscerts: %s[%d] address %q: %w", job, i, addr, err)
			}
			cp, kp, err := ca.Issue(fmt.Sprintf("%s:%d", job, i), []string{host}, validFor)
			if err != nil {
				return err
			}
			f := TaskFiles(dir, job, i)
			if err := os.WriteFile(f.Cert, cp, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(f.Key, kp, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
