package datasets

// Fetching a CIFAR archive into the Keras cache, as keras.utils.get_file
// does, and unpacking only the batch files from it.

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// download fetches Keras' archive of the Python version, extracts its
// folder into a temporary folder in Keras' cache, loads it, and only then
// renames it into place, so that an interrupted or bad download leaves
// nothing a later search would take for data.
func (s *cifarSpec) download(cfg *loadConfig, labels cifarLabels) (train, test Pair, err error) {
	cache, err := cfg.cache()
	if err != nil {
		return Pair{}, Pair{}, fmt.Errorf("no cache folder: %w", err)
	}
	dst := filepath.Join(cache, s.pyDir)
	if _, err := os.Lstat(dst); err == nil {
		return Pair{}, Pair{}, fmt.Errorf("%s exists but holds no complete copy; remove it to download again", dst)
	}
	url, sum := s.url, s.sha256
	if cfg.baseURL != DefaultBaseURL {
		url, sum = joinURL(cfg.baseURL, s.archive), ""
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s: %w", url, err)
		}
	}()
	timeout := cfg.timeout
	if timeout == DefaultDownloadTimeout {
		timeout = cifarDownloadTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	client := newHTTPClient(timeout)
	defer client.CloseIdleConnections()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Pair{}, Pair{}, err
	}
	resp, err := client.Do(req)
	if ue := (*neturl.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // it repeats the URL, which the message has already
	}
	if err != nil {
		return Pair{}, Pair{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Pair{}, Pair{}, fmt.Errorf("HTTP status %s", resp.Status)
	}

	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Pair{}, Pair{}, err
	}
	tmp, err := os.MkdirTemp(cache, "."+s.pyDir+".*.part")
	if err != nil {
		return Pair{}, Pair{}, err
	}
	defer os.RemoveAll(tmp)
	if resp.ContentLength > maxDownloadBytes {
		return Pair{}, Pair{}, errTooLarge()
	}
	h := sha256.New()
	counted := &countingReader{r: io.TeeReader(resp.Body, h), limit: maxDownloadBytes}
	if err := extractTarGz(counted, tmp, s.pyDir); err != nil {
		return Pair{}, Pair{}, fmt.Errorf("after %d bytes: %w", counted.n, err)
	}
	if _, err := io.Copy(io.Discard, counted); err != nil { // the rest counts for the checksum
		return Pair{}, Pair{}, fmt.Errorf("after %d bytes: %w", counted.n, err)
	}
	if resp.ContentLength >= 0 && counted.n != resp.ContentLength {
		return Pair{}, Pair{}, fmt.Errorf("got %d bytes, want %d", counted.n, resp.ContentLength)
	}
	if got := hex.EncodeToString(h.Sum(nil)); sum != "" && got != sum {
		return Pair{}, Pair{}, fmt.Errorf("SHA-256 is %s, want %s", got, sum)
	}
	src, why, ok := s.probeDir(filepath.Join(tmp, s.pyDir))
	if !ok {
		return Pair{}, Pair{}, fmt.Errorf("the archive's %s folder: %s", s.pyDir, why)
	}
	if train, test, err = src.load(s, labels); err != nil {
		return Pair{}, Pair{}, err
	}
	if err := os.Rename(filepath.Join(tmp, s.pyDir), dst); err != nil {
		return Pair{}, Pair{}, err
	}
	return train, test, nil
}

// countingReader counts what it reads, and fails past limit bytes.
type countingReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n += int64(n); c.n > c.limit {
		return n, errTooLarge()
	}
	return n, err
}

// maxArchiveFiles bounds the files extracted from a CIFAR archive's
// folder: the real ones hold 8 (CIFAR-10) and 3 (CIFAR-100).
const maxArchiveFiles = 32

// extractTarGz extracts the regular files directly inside folder top of a
// .tar.gz stream into dir/top. Other members are skipped, and names are
// never used as paths, so a hostile archive cannot write elsewhere.
func extractTarGz(r io.Reader, dir, top string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(zr)
	extracted := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		parent, base := path.Split(path.Clean(strings.TrimPrefix(hdr.Name, "./")))
		if !hdr.FileInfo().Mode().IsRegular() || path.Clean(parent) != top ||
			base == "" || strings.HasPrefix(base, ".") || strings.ContainsRune(base, filepath.Separator) {
			continue
		}
		if hdr.Size > cifarMaxFileBytes {
			return fmt.Errorf("%s is %d bytes, too large for a CIFAR file", hdr.Name, hdr.Size)
		}
		if extracted++; extracted > maxArchiveFiles {
			return fmt.Errorf("more than %d files in %s, more than a CIFAR archive holds", maxArchiveFiles, top)
		}
		if err := os.MkdirAll(filepath.Join(dir, top), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(dir, top, base), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("extracting %s: %w", hdr.Name, err)
		}
	}
	// Reading to the end of the gzip stream checks its CRC.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("reading the archive: %w", err)
	}
	return nil
}
