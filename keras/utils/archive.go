package utils

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrUnsafeArchive is matched (with errors.Is) by the error of an archive
// member that would land outside the extraction folder: an absolute path, a
// path through "..", a link whose target resolves outside the folder, or a
// device or pipe. Keras skips such members with a warning (and Python's
// "data" filter refuses the last kinds); here the whole extraction fails
// and leaves nothing, since an archive that holds them is not a dataset.
var ErrUnsafeArchive = errors.New("utils: unsafe archive member")

// extractLimit bounds what an archive of n bytes may extract to when
// GetFileConfig.MaxExtractBytes is 0: 2048 times its size, twice deflate's
// highest ratio, so that only a decompression bomb reaches it.
func extractLimit(n int64) int64 { return 2048*n + 1<<20 }

// archiveKind tells a tar (plain, gzip or bzip2) or zip archive by its
// first bytes, as Python's tarfile.is_tarfile and zipfile.is_zipfile do for
// these formats; "" if neither.
func archiveKind(f *os.File) (string, error) {
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", err
	}
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "tar.gz", nil
	case bytes.HasPrefix(head, []byte("BZh")):
		return "tar.bz2", nil
	case bytes.HasPrefix(head, []byte("\xfd7zXZ\x00")):
		return "tar.xz", nil
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return "zip", nil
	case len(head) == 512 && (string(head[257:262]) == "ustar" || tarChecksumOK(head)):
		return "tar", nil
	}
	return "", nil
}

// tarChecksumOK reports whether a 512-byte block is a v7 tar header.
func tarChecksumOK(b []byte) bool {
	var sum int64
	for i, c := range b {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	field := strings.Trim(string(b[148:156]), " \x00")
	var want int64
	if _, err := fmt.Sscanf(field, "%o", &want); err != nil {
		return false
	}
	return want == sum && sum != 8*' '
}

// extractArchive extracts the archive at file into dir (which must not
// exist), as keras.utils' extract_archive with archive_format formats
// ("tar", "zip" or both). It extracts into a temporary folder beside dir
// and renames it only when every member is in, so an interrupted or
// refused extraction leaves no dir. limit bounds the bytes written.
func extractArchive(file, dir string, formats []string, limit int64) (err error) {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	kind, err := archiveKind(f)
	if err != nil {
		return err
	}
	isTar := strings.HasPrefix(kind, "tar")
	allowed := false
	for _, a := range formats {
		allowed = allowed || (a == "tar" && isTar) || (a == "zip" && kind == "zip")
	}
	switch {
	case kind == "":
		return fmt.Errorf("%s is not a tar or zip archive", file)
	case !allowed:
		return fmt.Errorf("%s is a %s archive, not one of %q", file, kind, formats)
	case kind == "tar.xz":
		return fmt.Errorf("%s is an xz-compressed tar archive, which Go's standard library cannot read", file)
	}
	if limit <= 0 {
		limit = extractLimit(st.Size())
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*.part")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return err
	}
	defer root.Close()
	x := &extractor{root: root, limit: limit}
	if kind == "zip" {
		err = x.zip(f, st.Size())
	} else {
		var r io.Reader = bufio.NewReader(f)
		switch kind {
		case "tar.gz":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			r = zr
		case "tar.bz2":
			r = bzip2.NewReader(r)
		}
		err = x.tar(r)
	}
	if err == nil {
		err = x.links()
	}
	if err != nil {
		return fmt.Errorf("extracting %s: %w", file, err)
	}
	if err := root.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700
		return err
	}
	return os.Rename(tmp, dir)
}

// extractor writes archive members under root, which confines every
// operation to the folder (no path or link may lead out of it while
// extracting); symbolic links are made last and checked then.
type extractor struct {
	root     *os.Root
	limit    int64
	written  int64
	symlinks [][2]string // (name, target) of the symbolic links
}

// maxMemberDepth bounds the folders of a member's path: a name of a few
// kilobytes could otherwise nest thousands of folders, far beyond any
// dataset's.
const maxMemberDepth = 64

// local returns an archive member name as a local slash path, or an
// ErrUnsafeArchive error.
func local(name string) (string, error) {
	if strings.Count(name, "/") > maxMemberDepth {
		return "", fmt.Errorf("%w: %.80q... nests more than %d folders", ErrUnsafeArchive, name, maxMemberDepth)
	}
	n := strings.TrimPrefix(filepath.ToSlash(name), "./")
	n = strings.TrimSuffix(n, "/")
	if n == "" || n == "." {
		return ".", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(n)) || strings.Contains(n, "\\") {
		return "", fmt.Errorf("%w: %q is outside the extraction folder", ErrUnsafeArchive, name)
	}
	return path.Clean(n), nil
}

func (x *extractor) mkdir(name string) error {
	if name == "." {
		return nil
	}
	return x.root.MkdirAll(filepath.FromSlash(name), 0o755)
}

func (x *extractor) file(name string, mode fs.FileMode, r io.Reader) error {
	if err := x.mkdir(path.Dir(name)); err != nil {
		return err
	}
	// Python's "data" filter: no setuid or other high bits, no write for
	// group and others, and the owner may read and write.
	perm := mode.Perm()&0o755 | 0o600
	out, err := x.root.OpenFile(filepath.FromSlash(name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(r, x.limit-x.written+1))
	x.written += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && x.written > x.limit {
		err = fmt.Errorf("more than %d bytes extracted (a decompression bomb?); raise GetFileConfig.MaxExtractBytes if the archive is genuine", x.limit)
	}
	return err
}

func (x *extractor) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name, err := local(hdr.Name)
		if err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = x.mkdir(name)
		case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
			err = x.file(name, hdr.FileInfo().Mode(), tr)
		case tar.TypeSymlink:
			if name == "." {
				return fmt.Errorf("%w: a link %q in place of the folder", ErrUnsafeArchive, hdr.Name)
			}
			if path.IsAbs(filepath.ToSlash(hdr.Linkname)) || filepath.IsAbs(hdr.Linkname) {
				return fmt.Errorf("%w: link %q points to the absolute path %q", ErrUnsafeArchive, hdr.Name, hdr.Linkname)
			}
			if _, err := local(path.Join(path.Dir(name), filepath.ToSlash(hdr.Linkname))); err != nil {
				return fmt.Errorf("%w: link %q points to %q, outside the extraction folder", ErrUnsafeArchive, hdr.Name, hdr.Linkname)
			}
			x.symlinks = append(x.symlinks, [2]string{name, hdr.Linkname})
		case tar.TypeLink:
			target, err := local(hdr.Linkname)
			if err != nil {
				return fmt.Errorf("%w: hard link %q to %q, outside the extraction folder", ErrUnsafeArchive, hdr.Name, hdr.Linkname)
			}
			if err := x.mkdir(path.Dir(name)); err != nil {
				return err
			}
			st, err := x.root.Lstat(filepath.FromSlash(target))
			if err != nil || !st.Mode().IsRegular() {
				return fmt.Errorf("hard link %q to %q, which is not a file extracted before it", hdr.Name, hdr.Linkname)
			}
			err = x.root.Link(filepath.FromSlash(target), filepath.FromSlash(name))
		case tar.TypeXGlobalHeader, tar.TypeXHeader:
		default:
			return fmt.Errorf("%w: %q is a device, pipe or other special file (tar type %q)", ErrUnsafeArchive, hdr.Name, hdr.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

// links makes the symbolic links and checks that each resolves inside the
// folder (or to nothing yet, without leaving it).
func (x *extractor) links() error {
	for _, l := range x.symlinks {
		name := filepath.FromSlash(l[0])
		if err := x.mkdir(path.Dir(l[0])); err != nil {
			return err
		}
		if err := x.root.Symlink(l[1], name); err != nil {
			return err
		}
	}
	for _, l := range x.symlinks {
		if _, err := x.root.Stat(filepath.FromSlash(l[0])); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: link %q points to %q, which resolves outside the extraction folder", ErrUnsafeArchive, l[0], l[1])
		}
	}
	return nil
}

func (x *extractor) zip(f *os.File, size int64) error {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return err
	}
	for _, m := range zr.File {
		name, err := local(m.Name)
		if err != nil {
			return err
		}
		if strings.HasSuffix(m.Name, "/") || m.Mode().IsDir() {
			if err := x.mkdir(name); err != nil {
				return err
			}
			continue
		}
		if name == "." {
			continue
		}
		// Python's zipfile writes a link member as a file holding the
		// target; so does this.
		rc, err := m.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		err = x.file(name, m.Mode()&fs.ModePerm|0o644, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}
