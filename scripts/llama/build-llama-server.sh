#!/usr/bin/env bash
# Builds llama.cpp's llama-server (CPU only) from the source the npm package node-llama-cpp ships
# (a git bundle under its llama/ folder), and a tiny random-weight GGUF with a real Qwen2.5
# tokenizer and chat template, for the end-to-end test (test/llm/llama-server.e2e.test.ts).
# Everything is cached outside the repository (SCOUT_LLAMA_CACHE, default ~/.cache/scout-llama):
# a second run finds the binary and the model and returns at once. Prints the cache folder.
set -euo pipefail
NODE_LLAMA_CPP_VERSION=3.22.1
CACHE="${SCOUT_LLAMA_CACHE:-$HOME/.cache/scout-llama}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$CACHE"
cd "$CACHE"

if [ ! -x "$CACHE/llama.cpp/build/bin/llama-server" ]; then
  if [ ! -d llama.cpp ]; then
    npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null
    tar xzf "node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" package/llama/gitRelease.bundle
    git clone -q package/llama/gitRelease.bundle llama.cpp
  fi
  # Shared machines: build at low priority, two jobs.
  nice -n 10 cmake -S llama.cpp -B llama.cpp/build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=OFF >&2
  nice -n 10 cmake --build llama.cpp/build --target llama-server -j "${SCOUT_LLAMA_JOBS:-2}" >&2
fi

if [ ! -f "$CACHE/tiny-qwen.gguf" ]; then
  PYTHONPATH="$CACHE/llama.cpp/gguf-py" python3 "$HERE/make-tiny-gguf.py" \
    "$CACHE/llama.cpp/models/ggml-vocab-qwen2.gguf" \
    "$CACHE/llama.cpp/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" \
    "$CACHE/tiny-qwen.gguf" >&2
fi
echo "$CACHE"
