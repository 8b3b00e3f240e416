package utils

import (
	"context"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gokeras/gokeras/datasets"
)

// GetFileConfig is get_file's keyword arguments. The zero value is Keras'
// defaults: the file cached in ~/.keras/datasets (or $KERAS_HOME/datasets),
// no checksum, no extraction.
type GetFileConfig struct {
	// CacheSubdir is the folder under CacheDir (default "datasets"); an
	// absolute path is used as it is, as Python's os.path.join does.
	CacheSubdir string
	// FileHash is the file's expected SHA-256 or MD5 hex digest (Keras'
	// file_hash; MD5Hash is its deprecated md5_hash). A cached file with
	// another digest is downloaded again; a download with another digest
	// is an error and leaves no file.
	FileHash string
	MD5Hash  string
	// HashAlgorithm is "auto" (the default: SHA-256 for a 64-digit hash,
	// MD5 otherwise), "sha256" or "md5".
	HashAlgorithm string
	// Extract extracts the file, a tar (plain, gzip or bzip2) or zip
	// archive, and GetFile returns the folder it was extracted to. Untar is
	// Keras' deprecated untar=True: Extract with ArchiveFormat "tar".
	Extract bool
	Untar   bool
	// ArchiveFormat is "auto" (the default: tar or zip), "tar" or "zip".
	ArchiveFormat string
	// CacheDir is where the cache lives; "" is Keras' home
	// ($KERAS_HOME, else ~/.keras). Where it cannot be written to (or
	// made), the cache is $TMPDIR/.keras, as Keras falls back on
	// /tmp/.keras. A leading "~" is the user's home.
	CacheDir string
	// ForceDownload downloads even if the file is cached.
	ForceDownload bool
	// MaxBytes bounds the download (0: none); MaxExtractBytes bounds what
	// an archive may extract to (0: 2048 times the archive's size, which
	// only a decompression bomb exceeds).
	MaxBytes        int64
	MaxExtractBytes int64
	// Client makes the request; nil is a client that gives up quickly
	// without a network but lets a transfer run for minutes
	// (datasets.DefaultDownloadTimeout) unless the context ends first.
	Client *http.Client
	// Quiet drops the "Downloading data from ..." line; Out receives it
	// (default os.Stdout).
	Quiet bool
	Out   io.Writer
}

// kerasHome is Keras' config.keras_home(): $KERAS_HOME, else ~/.keras.
func kerasHome() (string, error) {
	if kh := os.Getenv("KERAS_HOME"); kh != "" {
		return kh, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".keras"), nil
}

func expandUser(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}

// writable reports whether dir may be written to, by making (if need be)
// and removing a file in it. Keras' os.access(dir, os.W_OK) is false for a
// folder that does not exist yet, so that Keras caches in /tmp/.keras when
// given a new cache_dir; here a folder that can be made is used.
func writable(dir string) bool {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	f, err := os.CreateTemp(dir, ".gokeras-access-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// GetFile is keras.utils.get_file: it downloads origin into Keras' cache
// unless it is there already and returns the path of the cached file (or,
// with Extract, of the folder the archive was extracted to). fname is the
// file's name in the cache ("" takes the last part of origin's path); it
// may not hold a path separator. In Python and in Go:
//
//	path = keras.utils.get_file("flower_photos", origin=url, untar=True)
//
//	path, err := utils.GetFile("flower_photos", url, utils.GetFileConfig{Untar: true})
//
// The names are Keras': with Extract and an fname with a dot (like
// "data.tar.gz") the archive is cached as is and extracted to
// "data_extracted"; with an fname without one ("flower_photos") the
// archive is "flower_photos_archive" and the folder "flower_photos". A
// download goes to a temporary file that gets its name only once complete
// and checked, and an archive is extracted into a temporary folder renamed
// when complete, so an interrupted call leaves nothing a later one would
// trust. Unlike Keras, a folder already extracted from the cached archive
// is not extracted again, and members that would land outside it (see
// [ErrUnsafeArchive]) are an error, not skipped.
func GetFile(fname, origin string, cfg GetFileConfig) (string, error) {
	return GetFileContext(context.Background(), fname, origin, cfg)
}

// GetFileContext is [GetFile] whose download stops when ctx ends.
func GetFileContext(ctx context.Context, fname, origin string, cfg GetFileConfig) (string, error) {
	const what = "utils: GetFile"
	if origin == "" {
		return "", fmt.Errorf("%s: no origin (the URL of the file to download)", what)
	}
	fileHash, alg := cfg.FileHash, cfg.HashAlgorithm
	if cfg.MD5Hash != "" && fileHash == "" {
		fileHash, alg = cfg.MD5Hash, "md5"
	}
	if _, err := datasets.HashAlgorithm(alg, fileHash); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	formats := []string{"tar", "zip"}
	switch cfg.ArchiveFormat {
	case "", "auto":
	case "tar", "zip":
		formats = []string{cfg.ArchiveFormat}
	default:
		return "", fmt.Errorf("%s: ArchiveFormat %q, want \"auto\", \"tar\" or \"zip\"", what, cfg.ArchiveFormat)
	}
	if cfg.Untar {
		formats = []string{"tar"}
	}
	extract := cfg.Extract || cfg.Untar

	base := cfg.CacheDir
	var err error
	if base == "" {
		if base, err = kerasHome(); err != nil {
			return "", fmt.Errorf("%s: no cache folder: %w", what, err)
		}
	}
	if base, err = expandUser(base); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if !writable(base) {
		base = filepath.Join(os.TempDir(), ".keras")
	}
	sub := cfg.CacheSubdir
	if sub == "" {
		sub = "datasets"
	}
	dataDir := sub
	if !filepath.IsAbs(sub) {
		dataDir = filepath.Join(base, sub)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}

	provided := fname != ""
	if !provided {
		u, err := neturl.Parse(origin)
		if err == nil {
			fname = path.Base(u.Path)
		}
		if err != nil || fname == "" || fname == "/" || fname == "." {
			return "", fmt.Errorf("%s: cannot take a file name from the origin %q; give fname", what, origin)
		}
	} else if strings.ContainsRune(fname, filepath.Separator) || strings.ContainsRune(fname, '/') || fname == "." || fname == ".." {
		return "", fmt.Errorf("%s: fname %q is a path; give the folder as CacheDir and the file's name as fname", what, fname)
	}
	target := filepath.Join(dataDir, fname)
	var extractDir string
	if extract {
		if provided && strings.Contains(fname, ".") {
			extractDir = filepath.Join(dataDir, fname[:strings.Index(fname, ".")]+"_extracted")
		} else {
			extractDir, target = filepath.Join(dataDir, fname), filepath.Join(dataDir, fname+"_archive")
		}
	}

	download := cfg.ForceDownload
	switch st, err := os.Stat(target); {
	case download:
	case err != nil:
		download = true
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%s: %s exists and is not a file", what, target)
	case fileHash != "":
		got, err := datasets.HashFile(target, resolvedAlg(alg, fileHash))
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		download = got != strings.ToLower(fileHash)
	}
	out := cfg.Out
	if out == nil {
		out = os.Stdout
	}
	if download {
		if !cfg.Quiet {
			fmt.Fprintf(out, "Downloading data from %s\n", origin)
		}
		err := datasets.DownloadFile(ctx, origin, target, datasets.DownloadConfig{
			Hash: fileHash, HashAlgorithm: alg, MaxBytes: cfg.MaxBytes, Client: cfg.Client})
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
	}
	if !extract {
		return target, nil
	}
	if _, err := os.Lstat(extractDir); err == nil {
		if !download {
			return extractDir, nil // extracted from this very archive before
		}
		if err := os.RemoveAll(extractDir); err != nil {
			return "", fmt.Errorf("%s: replacing %s: %w", what, extractDir, err)
		}
	}
	if err := extractArchive(target, extractDir, formats, cfg.MaxExtractBytes); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return extractDir, nil
}

func resolvedAlg(alg, hash string) string {
	a, err := datasets.HashAlgorithm(alg, hash)
	if err != nil {
		return "sha256"
	}
	return a
}
