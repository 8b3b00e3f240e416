package datasets

import (
	"path/filepath"
	"testing"
	"time"
)

func TestLoadOptions(t *testing.T) {
	cfg := newLoadConfig(nil)
	if cfg.baseURL != DefaultBaseURL || cfg.timeout != DefaultDownloadTimeout || cfg.noDownload || cfg.dir != "" || cfg.fixedDirs != nil {
		t.Errorf("defaults: %+v", cfg)
	}
	cfg = newLoadConfig([]LoadOption{Dir("/d"), NoDownload(), CacheDir("/c"), BaseURL("http://m/"), DownloadTimeout(time.Second), nil, withFixedDirs()})
	if cfg.dir != "/d" || !cfg.noDownload || cfg.cacheDir != "/c" || cfg.baseURL != "http://m/" || cfg.timeout != time.Second || cfg.fixedDirs == nil {
		t.Errorf("set: %+v", cfg)
	}
}

func TestCacheFollowsKeras(t *testing.T) {
	t.Setenv("KERAS_HOME", "/kh")
	if got, _ := newLoadConfig(nil).cache(); got != filepath.Join("/kh", "datasets") {
		t.Errorf("with KERAS_HOME: %s", got)
	}
	t.Setenv("KERAS_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got, _ := newLoadConfig(nil).cache(); got != "/home/u/.keras/datasets" {
		t.Errorf("default: %s", got)
	}
	if got, _ := newLoadConfig([]LoadOption{CacheDir("/c")}).cache(); got != "/c" {
		t.Errorf("CacheDir: %s", got)
	}
}
