"""An S3 server on 127.0.0.1 for the store (moto's server mode, the real S3 HTTP API), and the settings that point
s3fs, boto3 and every subprocess at it.

Used by ``tests/pipeline/test_object_store.py`` (a thread in the test process) and
``benchmarks/celery_deployment.py`` (the server as a process of its own, ``moto_server``). Nothing leaves the
machine: the endpoint is ``http://127.0.0.1:<port>`` and the credentials are moto's dummy ones.
"""

from __future__ import annotations

import contextlib
import os
import urllib.request
from collections.abc import Iterator

BUCKET = "ecoagent"


def s3_env(endpoint: str) -> dict[str, str]:
    """The environment a process needs to use the server: botocore reads the endpoint from ``AWS_ENDPOINT_URL``
    (s3fs goes through aiobotocore), fsspec's own config from ``FSSPEC_S3_ENDPOINT_URL``."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "FSSPEC_S3_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }


def use_endpoint(endpoint: str) -> None:
    """Point this process's s3fs at ``endpoint`` (fsspec read its environment when it was imported)."""
    import fsspec.config
    import s3fs

    os.environ.update(s3_env(endpoint))
    fsspec.config.conf.setdefault("s3", {})["endpoint_url"] = endpoint
    s3fs.S3FileSystem.clear_instance_cache()


def make_bucket(endpoint: str, bucket: str = BUCKET) -> None:
    import boto3

    boto3.client("s3", endpoint_url=endpoint, **_credentials()).create_bucket(Bucket=bucket)


def _credentials() -> dict[str, str]:
    return {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


@contextlib.contextmanager
def s3_server() -> Iterator[str]:
    """moto's S3 server in a thread on a free port of 127.0.0.1, this process pointed at it, the bucket made; yields
    its endpoint URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    before = {k: os.environ.get(k) for k in s3_env("")}
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        # moto keeps its buckets in this process's memory, across servers: start each test from an empty store
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST"), timeout=30)
        use_endpoint(endpoint)
        make_bucket(endpoint)
        yield endpoint
    finally:
        server.stop()
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        import fsspec.config

        fsspec.config.conf.get("s3", {}).pop("endpoint_url", None)
