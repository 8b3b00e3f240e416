#!/usr/bin/env bash
# Regenerates psrpc.pb.go and psrpc_grpc.pb.go from psrpc.proto.
# Needs protoc (Debian: apt-get install protobuf-compiler) and the two Go
# plugins at the versions go.mod pins (protobuf v1.36.9; protoc-gen-go-grpc
# v1.5.1 goes with grpc v1.72.2):
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.9
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
set -euo pipefail
cd "$(dirname "$0")"
PATH="$(go env GOPATH)/bin:$PATH"
protoc --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  psrpc.proto
