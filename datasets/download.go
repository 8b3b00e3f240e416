package datasets

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"
)

// errDownloadDisabled is NotFoundError.Download when NoDownload was given.
var errDownloadDisabled = errors.New("disabled by the NoDownload option")

// maxDownloadBytes bounds a download: the largest file fetched, CIFAR-100's
// archive, is 169 MB. A server that sends more (a wrong URL, a hostile
// mirror) gets an error instead of filling the disk. Tests lower it.
var maxDownloadBytes int64 = 512 << 20

// errTooLarge is the error of a download past maxDownloadBytes.
func errTooLarge() error {
	return fmt.Errorf("more than %d bytes, more than any dataset file", maxDownloadBytes)
}

// download fetches the dataset into Keras' cache, where the next search
// finds it, and returns the copy to load.
func (s *datasetSpec) download(cfg *loadConfig) (source, error) {
	cache, err := cfg.cache()
	if err != nil {
		return source{}, fmt.Errorf("no cache folder: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	client := newHTTPClient(cfg.timeout)
	defer client.CloseIdleConnections()

	if s.npzName != "" {
		dst := filepath.Join(cache, s.npzName)
		sum := ""
		if cfg.baseURL == DefaultBaseURL {
			sum = s.npzSHA256
		}
		verify := func(tmp string) error { _, _, err := readMNISTNPZ(tmp); return err }
		if err := downloadFile(ctx, client, joinURL(cfg.baseURL, s.npzName), dst, sum, verify); err != nil {
			return source{}, err
		}
		return source{npz: dst}, nil
	}

	var src source
	for i, base := range idxBaseNames {
		name := base + ".gz"
		dst := filepath.Join(cache, s.name, name)
		src.idx[i] = dst
		// A file left by an earlier, partly failed run was verified before
		// it got its final name, so it need not be fetched again.
		if _, _, ok := probeFile(dst); ok {
			continue
		}
		magic, what := uint32(idxImagesMagic), "pixels"
		if i%2 == 1 {
			magic, what = idxLabelsMagic, "labels"
		}
		verify := func(tmp string) error { _, _, err := readIDX(tmp, magic, what); return err }
		if err := downloadFile(ctx, client, joinURL(cfg.baseURL, name), dst, "", verify); err != nil {
			return source{}, err
		}
	}
	return src, nil
}

// newHTTPClient returns a client that gives up quickly when there is no
// network (connection and response-header timeouts) but lets a slow
// transfer run for up to total.
func newHTTPClient(total time.Duration) *http.Client {
	return &http.Client{
		Timeout: total,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second,
		},
	}
}

func joinURL(base, name string) string {
	return strings.TrimSuffix(base, "/") + "/" + name
}

// downloadFile fetches url into dst with [DownloadFile], bounded by
// maxDownloadBytes: a file is renamed into place only once it is
// complete, has the wanted SHA-256 (if wantSHA256 is not "") and passes
// verify, so an interrupted or bad download never leaves a file that a
// later search would take for data.
func downloadFile(ctx context.Context, client *http.Client, url, dst, wantSHA256 string, verify func(path string) error) error {
	return DownloadFile(ctx, url, dst, DownloadConfig{Hash: wantSHA256, HashAlgorithm: "sha256", MaxBytes: maxDownloadBytes,
		Verify: verify, Client: client, tooLarge: errTooLarge})
}
