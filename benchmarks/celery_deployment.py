"""Benchmark: the production deployment on this machine. Airflow's CeleryExecutor with two workers that share no
disk but the store, the store on an S3 server, PostgreSQL as the metadata database, Redis as the broker.

Everything is started here and stopped afterwards, each service on a free port of 127.0.0.1:

1. PostgreSQL and Redis from Debian's packages (``apt-get install postgresql redis-server`` when missing): a cluster
   of its own (``initdb`` as the ``postgres`` user, in the work folder), a Redis without persistence;
2. the S3 server (``moto_server``, moto's server mode: the S3 HTTP API) holding the bucket ``ecoagent``: the store
   is ``s3://ecoagent/<name>``;
3. the OpenAI-compatible LLM endpoint: the stand-in server (``ecoagent/testing/standin_llm.py``) in this process, which
   counts every request it receives (deterministic answers, so every run gets the same ones);
4. Airflow 3 (api-server, scheduler, dag-processor, triggerer) with ``executor = CeleryExecutor``, the LLM pool
   ``ecoagent_llm`` (``airflow pools set``), and two workers (``airflow celery worker --queues default,gpu``), each
   in a working folder of its own with its own package, embedding, LLM response and release caches (set through
   ``ECOAGENT__*`` in its environment); nothing but the store connects them.

Then, on the fixture world of the DAG tests (``--profile fixture``, the default: ``tests/dags/fixture_world.py``,
the package mirror, the BFCL queries; the LLM verifier on, so both LLM stages send requests), or on the default
profile's real world (``--profile default``: the pinned packages, BFCL, LiveMCPBench, the n8n workflow templates;
the profile's own verifier, so only the synth stage asks the LLM):

a. the reference: one ``ecoagent run`` process with the same config, store on the local disk; or, with
   ``--reference RELEASE_DIR``, a release of the same profile and config built beforehand by one ``ecoagent run``
   process (the default profile's takes half an hour here);
b. ``ecoagent_refresh`` through the scheduler and the workers (conf ``out: s3://ecoagent/refresh``): it succeeds;
   the release's data files (every Parquet file and the two mapping JSONs, their bytes hashed) are byte-identical
   to the reference's; the LLM server received exactly the requests the reference sent, none twice (with seeded
   caches, ``--llm-cache``: the requests not in the cache, none expected); ``datasets.load_dataset`` reads the
   release from the S3 server; the time of every task, per stage;
c. (fixture profile) the same refresh again, both workers' caches emptied, the LLM slowed down, and a worker killed
   with ``kill -9``
   (its whole process tree) while a ``verify_shard`` task of it has answers in flight: the scheduler finds the task
   gone (``task_instance_heartbeat_timeout``), retries it (``ECOAGENT_RETRY_DELAY_S``) on whichever worker takes it
   (the killed one is started again), the retry sends only what the killed try had in flight, and the release is
   byte-identical again;
d. with ``--rated``: the ``ecoagent_rated`` run that the release event triggers, on the ``gpu`` queue.

Then every process started here is stopped (SIGTERM, SIGKILL after a grace period) and checked gone.

The workers' caches start empty, or as copies of ``--llm-cache FILE`` (the LLM response cache: a rerun asks
nothing), ``--package-cache DIR`` and ``--embedding-cache DIR`` (each worker gets its own copy; still no shared disk).

    .venv/bin/python benchmarks/celery_deployment.py [--keep DIR] [--rated] [--record pipeline-celery-deployment]
    .venv/bin/python benchmarks/celery_deployment.py --profile default --reference RELEASE_DIR --llm-cache FILE \
        [--package-cache DIR] [--embedding-cache DIR] --record pipeline-celery-deployment-default
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a file: this checkout's packages and its tests/ (the fixture builders)

from benchmarking.airflow_standalone import Standalone, free_port, send_signal  # noqa: E402
from benchmarking.celery_deployment import (  # noqa: E402
    VERSION,
    WORKER_CACHES,
    data_files,
    refresh_conf,
    reply,
    seed_caches,
    stage_times,
    tasks_in_worker_log,
    write_deployment_record,
)
from benchmarking.checks import CheckFailed, run_checked  # noqa: E402
from benchmarking.checks import check as _check  # noqa: E402
from benchmarking.record import add_record_option  # noqa: E402
from ecoagent.layout import RATED_FILES, RELEASE_FILES  # noqa: E402
from ecoagent.store import ArtifactStore  # noqa: E402
from ecoagent.testing.standin_llm import StandInOpenAI  # noqa: E402
from tests.dags.fixture_world import fixture_refresh_conf  # noqa: E402
from tests.object_store import BUCKET, make_bucket, s3_env, use_endpoint  # noqa: E402

WORKERS = ("w1", "w2")
# the worker caches a run may seed (each worker its own copy): option -> the WORKER_CACHES key it fills
SEEDS = {"llm_cache": "ECOAGENT__LLM__CACHE_PATH", "package_cache": "ECOAGENT__CRAWL__CACHE_DIR",
         "embedding_cache": "ECOAGENT__EMBEDDING__CACHE_DIR"}  # fmt: skip


class Services:
    """PostgreSQL, Redis and the S3 server, each a process of this benchmark on a free port of 127.0.0.1."""

    def __init__(self, work: Path, tag: str) -> None:
        self.work, self.tag = work, tag
        self.pg_port, self.redis_port, self.s3_port = free_port(), free_port(), free_port()
        self.procs: list[subprocess.Popen] = []
        self.pg_bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]).parent if glob.glob(
            "/usr/lib/postgresql/*/bin/pg_ctl") else None  # fmt: skip
        self.pg_data = work / "postgres"
        self.endpoint = f"http://127.0.0.1:{self.s3_port}"

    @staticmethod
    def install() -> float:
        """``apt-get install`` what is missing; the seconds it took (0 when nothing was)."""
        missing = [pkg for pkg, found in (("postgresql", glob.glob("/usr/lib/postgresql/*/bin/initdb")),
                                          ("redis-server", shutil.which("redis-server"))) if not found]  # fmt: skip
        if not missing:
            return 0.0
        started = time.perf_counter()
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)
        return time.perf_counter() - started

    def start(self) -> None:
        env = {**os.environ, "ECOAGENT_BENCH_SESSION": self.tag}
        self.pg_bin = self.pg_bin or Path(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]).parent
        self.pg_data.mkdir(parents=True)
        shutil.chown(self.pg_data, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
        subprocess.run([*as_postgres, str(self.pg_bin / "initdb"), "-D", str(self.pg_data), "-U", "airflow",
                        "--auth=trust", "-E", "UTF8"], check=True, capture_output=True, env=env)  # fmt: skip
        options = f"-p {self.pg_port} -k {self.pg_data} -c listen_addresses=127.0.0.1"
        log_file = str(self.pg_data / "server.log")
        subprocess.run([*as_postgres, str(self.pg_bin / "pg_ctl"), "-D", str(self.pg_data), "-o", options, "-w",
                        "-l", log_file, "start"], check=True, capture_output=True, env=env)  # fmt: skip
        subprocess.run([str(self.pg_bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "airflow",
                        "airflow"], check=True, env=env)  # fmt: skip
        log = (self.work / "services.log").open("w")
        self.procs.append(subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip
        moto = Path(sys.executable).with_name("moto_server")
        self.procs.append(subprocess.Popen([str(moto), "-H", "127.0.0.1", "-p", str(self.s3_port)], env=env,
                                           stdout=log, stderr=subprocess.STDOUT, start_new_session=True))  # fmt: skip
        _wait_for(lambda: _http_ok(self.endpoint), 60, "the S3 server")
        use_endpoint(self.endpoint)
        make_bucket(self.endpoint)

    def airflow_env(self) -> dict[str, str]:
        db = f"postgresql+psycopg2://airflow@127.0.0.1:{self.pg_port}/airflow"
        return {
            "AIRFLOW__CORE__EXECUTOR": "CeleryExecutor",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": db,
            "AIRFLOW__CELERY__BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "AIRFLOW__CELERY__RESULT_BACKEND": f"db+postgresql+psycopg2://airflow@127.0.0.1:{self.pg_port}/airflow",
            "AIRFLOW__CELERY__WORKER_CONCURRENCY": "2",
            "AIRFLOW__CELERY__WORKER_PREFETCH_MULTIPLIER": "1",
            **s3_env(self.endpoint),
        }

    def stop(self) -> None:
        if self.pg_bin and (self.pg_data / "postmaster.pid").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", str(self.pg_bin / "pg_ctl"), "-D", str(self.pg_data),
                            "-m", "fast", "-w", "stop"], capture_output=True)  # fmt: skip
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def _wait_for(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise CheckFailed(f"{what} is not up after {timeout_s:.0f} s")
        time.sleep(0.5)


class CeleryAirflow(Standalone):
    """Airflow's components and two Celery workers as processes of this benchmark (tagged: see ``Standalone``)."""

    def __init__(self, home: Path, port: int, services: Services, work: Path, seeds: dict[str, Path]) -> None:
        super().__init__(home, port, parallelism=4)
        self.work, self.seeds = work, seeds  # seeds: WORKER_CACHES key -> the file or folder a fresh worker copies
        self.env.update(services.airflow_env())
        self.env.update({
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",  # 127.0.0.1 only, a throwaway home
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "45",  # a killed worker's task is found in ~1 min
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "5",
            "ECOAGENT_RETRY_DELAY_S": "5",
            "ECOAGENT_BENCH_SESSION": self.tag,
        })  # fmt: skip
        self.workers: dict[str, subprocess.Popen] = {}
        self.started: list[subprocess.Popen] = []  # every component and worker, each the leader of its session

    def airflow(self, *args: str) -> None:
        done = subprocess.run([str(Path(sys.executable).with_name("airflow")), *args], env=self.env, cwd=self.home,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        if done.returncode:
            raise CheckFailed(f"airflow {' '.join(args)} failed: {(done.stdout + done.stderr)[-3000:]}")

    def start(self) -> None:
        self.airflow("db", "migrate")
        # the LLM endpoint's pool: (concurrent requests it serves well) / llm.concurrency = 2 / 1 here
        self.airflow("pools", "set", "ecoagent_llm", "2", "the LLM endpoint")
        self.log = (self.home / "airflow.log").open("w")
        for component in ("api-server", "scheduler", "dag-processor", "triggerer"):
            args = ["api-server", "--port", str(self.port)] if component == "api-server" else [component]
            proc = subprocess.Popen([str(Path(sys.executable).with_name("airflow")), *args], env=self.env,
                                    cwd=self.home, stdout=self.log, stderr=subprocess.STDOUT,
                                    start_new_session=True)  # fmt: skip
            self.started.append(proc)
            self.proc = self.proc or proc

    def sessions(self) -> set[int]:
        return {p.pid for p in self.started}

    def start_worker(self, name: str, fresh: bool = False) -> None:
        folder = self.work / name
        if fresh:
            shutil.rmtree(folder, ignore_errors=True)
        env = {**self.env, "ECOAGENT_WORKER": name}
        for key, rel in WORKER_CACHES.items():
            env[key] = str(folder / rel)
        (folder / "tmp").mkdir(parents=True, exist_ok=True)
        if fresh:
            seed_caches(self.seeds, env)
        log = (folder / "worker.log").open("a")
        self.workers[name] = subprocess.Popen(
            [str(Path(sys.executable).with_name("airflow")), "celery", "worker", "--queues", "default,gpu",
             "--concurrency", "2", "--celery-hostname", f"{name}@%h"],
            env=env, cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        self.started.append(self.workers[name])

    def check_workers(self) -> None:
        for name, proc in self.workers.items():
            if proc.poll() is not None:
                log = (self.work / name / "worker.log").read_text(errors="replace")[-3000:]
                raise CheckFailed(f"worker {name} exited ({proc.returncode}): {log}")

    def tasks_run(self, name: str, run_id: str) -> list[str]:
        """The tasks of ``run_id`` that worker ``name`` received (``task[map_index]``), from its log's log paths."""
        return tasks_in_worker_log((self.work / name / "worker.log").read_text(errors="replace"), run_id)

    def worker_processes(self, name: str) -> list[int]:
        """Every live process of worker ``name``: its session (the Celery worker, its pool, the task processes)."""
        return list(self.processes({self.workers[name].pid}))

    def kill_worker(self, name: str) -> int:
        """``kill -9`` the whole process tree of worker ``name``; how many processes."""
        pids = self.worker_processes(name)
        for pid in pids:
            send_signal(pid, signal.SIGKILL)
        self.workers[name].wait(10)
        return len(pids)

    def task_instances(self, dag_id: str, run_id: str) -> list[dict]:
        path = f"/api/v2/dags/{dag_id}/dagRuns/{urllib.request.quote(run_id, safe='')}/taskInstances?limit=100"
        return self.call("GET", path)["task_instances"]

    def trigger(self, conf: dict) -> str:
        self.check_workers()
        return self.call("POST", "/api/v2/dags/ecoagent_refresh/dagRuns", {"logical_date": None, "conf": conf})[
            "dag_run_id"]  # fmt: skip


def reference_run(work: Path, conf: dict, env: dict) -> tuple[str, float]:
    """One ``ecoagent run`` process with the same config, its store on the local disk; its release folder and time."""
    out = work / "reference"
    caches = {key: str(work / "reference-caches" / rel) for key, rel in WORKER_CACHES.items()}
    (work / "reference-caches" / "tmp").mkdir(parents=True, exist_ok=True)
    args = [str(Path(sys.executable).with_name("ecoagent")), "run", "--profile", conf["profile"], "--out", str(out)]
    args += [a for o in conf["overrides"] for a in ("--set", o)]
    started = time.perf_counter()
    with (work / "reference.log").open("w") as log:
        done = subprocess.run(args, env={**env, **caches}, cwd=work, stdout=log, stderr=subprocess.STDOUT)
    _check(done.returncode in (0, 3), f"the reference `ecoagent run` succeeded (see {work / 'reference.log'})")
    return str(out / "release" / VERSION), time.perf_counter() - started


def release_manifest(out: str) -> dict:
    return ArtifactStore(f"{out}/release/{VERSION}").read_json(RELEASE_FILES.manifest)


def celery_refresh(airflow: CeleryAirflow, conf: dict, timeout_s: float, report: dict) -> float:
    """Trigger the refresh and wait for it; its run id and stage times go into ``report`` (failed or not)."""
    started = time.perf_counter()
    run_id = report["runs"]["refresh"] = airflow.trigger(conf)
    run = airflow.wait_run("ecoagent_refresh", run_id, timeout_s)
    seconds = time.perf_counter() - started
    instances = airflow.task_instances("ecoagent_refresh", run_id)
    report["stages"] = stage_times(instances)
    states = {f"{t['task_id']}[{t['map_index']}]": t["state"] for t in instances}
    _check(run["state"] == "success", f"ecoagent_refresh {run_id} succeeded in {seconds:.0f} s: {states}")
    return seconds


def kill_during_verification(airflow: CeleryAirflow, llm: StandInOpenAI, run_id: str, timeout_s: float) -> dict:
    """Wait until a verify_shard task has answers in flight, kill -9 its worker, start the worker again."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        verified = llm.by_kind["structured"]["answers"]
        running = [t for t in airflow.task_instances("ecoagent_refresh", run_id)
                   if t["task_id"] == "verify_shard" and t["state"] == "running" and t.get("pid")]  # fmt: skip
        if verified >= 2 and running and llm.in_flight:
            victim = next((w for w in WORKERS for t in running if t["pid"] in airflow.worker_processes(w)), None)
            if victim is not None:
                in_flight, requests = llm.in_flight, llm.requests
                killed = airflow.kill_worker(victim)
                print(f"  killed worker {victim} ({killed} processes) with {in_flight} requests in flight", flush=True)
                time.sleep(2)
                airflow.start_worker(victim)
                return {"worker": victim, "processes_killed": killed, "in_flight_at_kill": in_flight,
                        "requests_before_kill": requests, "verify_answers_before_kill": verified}  # fmt: skip
        time.sleep(0.2)
    raise CheckFailed("no verify_shard task with requests in flight to kill")


def run(work: Path, args: argparse.Namespace) -> dict:
    report: dict = {"profile": args.profile, "timings": {}}
    timings = report["timings"]
    timings["apt_install_s"] = round(Services.install(), 1)
    home = work / "airflow-home"
    home.mkdir(parents=True)
    t0 = time.perf_counter()
    services = Services(work, "")
    seeds = {key: getattr(args, option) for option, key in SEEDS.items() if getattr(args, option)}
    report["seeded_caches"] = {key: str(path) for key, path in seeds.items()}
    airflow = CeleryAirflow(home, free_port(), services, work, seeds)
    services.tag = airflow.tag  # the services are processes of the session too: the final check covers them
    try:
        print("1. PostgreSQL, Redis, the S3 server")
        services.start()
        airflow.started.extend(services.procs)  # Redis and the S3 server: their sessions are checked at the end too
        print(f"2. Airflow (CeleryExecutor) in {home}, workers {', '.join(WORKERS)}")
        airflow.start()
        for name in WORKERS:
            airflow.start_worker(name, fresh=True)
        airflow.wait_healthy(args.timeout_min * 60)
        airflow.wait_dag("ecoagent_refresh", 300)
        airflow.check_workers()
        airflow.call("PATCH", "/api/v2/dags/ecoagent_refresh", {"is_paused": False})
        timings["services_and_airflow_up_s"] = round(time.perf_counter() - t0, 1)
        _check(True, f"healthy, the refresh DAG parsed after {timings['services_and_airflow_up_s']} s")
        env = {**os.environ, **s3_env(services.endpoint), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        refreshes(airflow, work, env, args, report)
    except CheckFailed:
        (work / "report.json").write_text(json.dumps(report, indent=2))  # how far it got, for the notes
        raise
    finally:
        print("5. stop everything")
        services.stop()
        report["stop"] = airflow.stop(args.stop_grace_s)
        timings["total_s"] = round(time.perf_counter() - t0, 1)
    stopped = report["stop"]
    _check(not stopped["left"], f"no process left ({stopped['terminated']} terminated, {stopped['killed']} killed)")
    return report


def reference(work: Path, env: dict, args: argparse.Namespace, world: dict | None, report: dict) -> dict[str, str]:
    """The reference release's data files: ``--reference`` as it is, else one ``ecoagent run`` process now (its LLM
    requests counted in ``report``)."""
    if args.reference:
        print(f"3a. the reference: {args.reference}, built beforehand by one `ecoagent run` process")
        report["reference"] = {"release": str(args.reference), "built": "beforehand"}
        return data_files(str(args.reference))
    with StandInOpenAI(respond=reply) as llm:
        print("3a. the reference: one `ecoagent run` process, the store on the local disk")
        conf = refresh_conf(world, llm.base_url, f"s3://{BUCKET}/refresh", work)
        release, report["timings"]["reference_run_s"] = reference_run(work, conf, env)
        stats = llm.stats()
    report["reference"] = {"release": release, "built": "in this run"}
    report["reference_llm"] = {"requests": stats["requests"], "by_kind": stats["by_kind"]}
    return data_files(release)


def refreshes(airflow: CeleryAirflow, work: Path, env: dict, args: argparse.Namespace, report: dict) -> None:
    timings = report["timings"]
    timeout = args.timeout_min * 60
    # the fixture profile: the package mirror and the BFCL queries, built once; the default profile: the real world
    world = fixture_refresh_conf(work / "world") if args.profile == "fixture" else None
    expected = reference(work, env, args, world, report)
    report["data_files"] = len(expected)

    with StandInOpenAI(respond=reply) as llm:
        conf = refresh_conf(world, llm.base_url, f"s3://{BUCKET}/refresh", work)
        print("3b. ecoagent_refresh through the scheduler and two Celery workers, the store on S3")
        report["runs"] = {}
        timings["celery_refresh_s"] = celery_refresh(airflow, conf, timeout, report)
        run_id = report["runs"]["refresh"]
        stats = llm.stats()
        report["celery_llm"] = {"requests": stats["requests"], "by_kind": stats["by_kind"],
                                "twice": stats["bodies_answered_more_than_once"]}  # fmt: skip
        got = data_files(f"{conf['out']}/release/{VERSION}")
        report["differing_files"] = sorted(f for f in expected.keys() | got.keys() if expected.get(f) != got.get(f))
        _check(got == expected, f"the release's {len(expected)} data files are byte-identical to the reference's "
                                f"(differing: {report['differing_files']})")  # fmt: skip
        # what to expect: the reference's requests, or nothing with a seeded response cache (else not known here)
        sent = report["reference_llm"]["requests"] if "reference_llm" in report else 0 if args.llm_cache else None
        _check(stats["requests"] == (stats["requests"] if sent is None else sent)
               and stats["bodies_answered_more_than_once"] == 0,
               f"the LLM server got {stats['requests']} requests ({sent} expected), none twice")  # fmt: skip
        hosts = sorted({ti.get("hostname") for ti in airflow.task_instances("ecoagent_refresh", run_id)} - {None})
        report["task_hosts"] = hosts
        report["tasks_by_worker"] = {name: airflow.tasks_run(name, run_id) for name in WORKERS}
        report["loaded_from_s3"] = load_from_s3(conf["out"], release_manifest(conf["out"]))

    if args.profile == "fixture" and "reference_llm" in report:  # the reference's requests: what a kill adds to
        print("3c. again with empty worker caches, a slow LLM, and a worker killed with kill -9 during verification")
        report["kill"] = killed_refresh(airflow, world, work, expected, report, timeout)
    if args.rated:
        report["rated"] = rated_on_the_gpu_queue(airflow, args.profile, timeout)


def killed_refresh(airflow: CeleryAirflow, world: dict, work: Path, expected: dict[str, str], report: dict,
                   timeout: float) -> dict:
    """The refresh again, empty worker caches, a slow LLM, a worker killed during verification: retried, resends
    only what was in flight, byte-identical again."""
    timings = report["timings"]
    for name in WORKERS:
        airflow.kill_worker(name)
        airflow.start_worker(name, fresh=True)

    def slow(body: dict, content: str) -> str:
        time.sleep(0.6 if "response_format" in body else 0.05)
        return reply(body, content)

    with StandInOpenAI(respond=slow) as llm:
        conf = refresh_conf(world, llm.base_url, f"s3://{BUCKET}/refresh-killed", work)
        started = time.perf_counter()
        run_id = airflow.trigger(conf)
        kill = kill_during_verification(airflow, llm, run_id, timeout)
        result = airflow.wait_run("ecoagent_refresh", run_id, timeout)
        timings["killed_refresh_s"] = round(time.perf_counter() - started, 1)
        instances = airflow.task_instances("ecoagent_refresh", run_id)
        _check(result["state"] == "success", f"the refresh with the kill succeeded in {timings['killed_refresh_s']} s")
        tries = {f"verify_shard[{t['map_index']}]": t["try_number"]
                 for t in instances if t["task_id"] == "verify_shard"}  # fmt: skip
        _check(max(tries.values()) >= 2, f"the killed shard was retried: tries {tries}")
        stats = llm.stats()
        sent_before = report["reference_llm"]["requests"]
        resent = stats["requests"] - sent_before
        _check(0 <= resent <= kill["in_flight_at_kill"],
               f"{stats['requests']} requests: the reference's {sent_before} + {resent} sent again "
               f"(in flight at the kill: {kill['in_flight_at_kill']})")  # fmt: skip
        _check(data_files(f"{conf['out']}/release/{VERSION}") == expected, "the release is byte-identical again")
        report["runs"]["killed"] = run_id
        return {**kill, "tries": tries, "requests": stats["requests"], "sent_again": resent,
                "answered_twice": stats["bodies_answered_more_than_once"],
                "stages": stage_times(instances)}  # fmt: skip


def load_from_s3(out: str, manifest: dict) -> dict:
    """``datasets.load_dataset`` on the release's ``real-queries`` config, read from the S3 server."""
    import datasets

    from ecoagent.release_format.reader import hf_data_files

    files = hf_data_files(f"{out}/release/{VERSION}", "real-queries")
    with tempfile.TemporaryDirectory() as cache:
        loaded = datasets.load_dataset("parquet", data_files=files, cache_dir=cache)
    rows = {split: loaded[split].num_rows for split in loaded}
    _check(rows == manifest["counts"]["real-queries"], f"datasets.load_dataset read real-queries from S3: {rows}")
    return {"config": "real-queries", "rows": rows, "files": files}


def rated_on_the_gpu_queue(airflow: CeleryAirflow, profile: str, timeout_s: float) -> dict:
    """Unpause ecoagent_rated and trigger it on the newest release (its tasks go to the gpu queue)."""
    airflow.wait_dag("ecoagent_rated", 300)
    airflow.call("PATCH", "/api/v2/dags/ecoagent_rated", {"is_paused": False})
    started = time.perf_counter()
    conf = {"profile": profile, "out": f"s3://{BUCKET}/refresh", "release": f"s3://{BUCKET}/refresh/release/{VERSION}"}
    run_id = airflow.call("POST", "/api/v2/dags/ecoagent_rated/dagRuns", {"logical_date": None, "conf": conf})[
        "dag_run_id"]  # fmt: skip
    result = airflow.wait_run("ecoagent_rated", run_id, timeout_s)
    seconds = round(time.perf_counter() - started, 1)
    instances = airflow.task_instances("ecoagent_rated", run_id)
    queues = {t["task_id"]: t.get("queue") for t in instances}
    _check(result["state"] == "success", f"ecoagent_rated succeeded in {seconds} s, queues {queues}")
    metrics = ArtifactStore(f"s3://{BUCKET}/refresh/rated/{VERSION}").read_json(RATED_FILES.metrics)
    _check(metrics["release"]["folder"] == conf["release"], "it evaluated the release on S3, metrics on S3")
    return {"seconds": seconds, "queues": queues, "stages": stage_times(instances)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="work here (and keep it) instead of a temporary folder")
    parser.add_argument("--timeout-min", type=float, default=30, help="per wait")
    parser.add_argument("--stop-grace-s", type=float, default=30, help="SIGTERM to SIGKILL")
    parser.add_argument("--rated", action="store_true", help="also run ecoagent_rated on the gpu queue")
    parser.add_argument("--profile", choices=("fixture", "default"), default="fixture",
                        help="fixture: the DAG tests' world, then the kill -9 run; default: the real world, no kill")
    parser.add_argument("--reference", type=Path, metavar="RELEASE_DIR",
                        help="a release of the same profile and config built by one `ecoagent run` process, compared "
                             f"against instead of running it here (built with release.version={VERSION})")
    parser.add_argument("--llm-cache", type=Path, metavar="FILE", help="each worker's LLM response cache starts as a "
                        "copy of this one (the requests the server then counts are the ones it lacks)")
    parser.add_argument("--package-cache", type=Path, metavar="DIR", help="each worker's package cache starts as a "
                        "copy of this folder (crawl.cache_dir)")
    parser.add_argument("--embedding-cache", type=Path, metavar="DIR", help="each worker's embedding cache starts as "
                        "a copy of this folder (embedding.cache_dir)")
    add_record_option(parser)
    args = parser.parse_args()
    # 0o755: the postgres user walks into its data folder inside it
    report = run_checked("ecoagent-bench-celery-", args, run, mode=0o755)
    if args.record:
        write_deployment_record(args.record, report)


if __name__ == "__main__":
    threading.excepthook = lambda hook: None  # the stand-in's connection threads die with the killed clients
    main()
