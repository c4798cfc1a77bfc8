import io
import tarfile
import zipfile

import pytest

from ecoagent.packages.archive import ArchiveError, ArchiveLimits, ArchiveTooLarge, UnsafeArchiveError, read_archive
from tests.package_builders import build_npm_tgz, build_wheel


def _tar_with(path, members):
    with tarfile.open(path, "w:gz") as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name, data=b"x"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def test_reads_wanted_members_and_strips_the_npm_root(tmp_path):
    tgz = build_npm_tgz(tmp_path, "@scope/pkg", "1.0.0", {"dist/a.js": "a", "README.md": "r"})
    got = read_archive(tgz, lambda p: p.endswith(".js") or p == "package.json")
    assert sorted(got.files) == ["dist/a.js", "package.json"]
    whl = build_wheel(tmp_path, "demo-pkg", "0.1", {"demo/__init__.py": "X = 1\n"})
    got = read_archive(whl, lambda p: p.endswith(".py"))
    assert got.files == {"demo/__init__.py": b"X = 1\n"}


@pytest.mark.parametrize("name", ["package/../../etc/passwd", "/etc/passwd", "package/a/../../b"])
def test_tar_member_escaping_the_folder_refuses_the_archive(tmp_path, name):
    tgz = _tar_with(tmp_path / "evil.tgz", [_file("package/package.json", b"{}"), _file(name)])
    with pytest.raises(UnsafeArchiveError):
        read_archive(tgz, lambda p: True)


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_tar_links_refuse_the_archive_even_when_not_wanted(tmp_path, kind):
    link = tarfile.TarInfo("package/innocent.txt")
    link.type, link.linkname = kind, "/etc/passwd"
    tgz = _tar_with(tmp_path / "link.tgz", [_file("package/package.json", b"{}"), (link, None)])
    with pytest.raises(UnsafeArchiveError, match="link"):
        read_archive(tgz, lambda p: p == "package.json")


@pytest.mark.parametrize("name", ["../evil.py", "/abs/evil.py", "C:/evil.py"])
def test_zip_member_escaping_the_folder_refuses_the_archive(tmp_path, name):
    path = tmp_path / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ok.py", "x")
        zf.writestr(name, "x")
    with pytest.raises(UnsafeArchiveError):
        read_archive(path, lambda p: True)


def test_zip_symlink_refuses_the_archive(tmp_path):
    path = tmp_path / "link-1.0-py3-none-any.whl"
    info = zipfile.ZipInfo("link.py")
    info.external_attr = 0o120777 << 16
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(UnsafeArchiveError, match="symlink"):
        read_archive(path, lambda p: True)


@pytest.mark.parametrize("suffix", [".whl", ".tgz"])
def test_corrupt_archive_is_an_archive_error(tmp_path, suffix):
    path = tmp_path / f"broken-1.0{suffix}"
    path.write_bytes(b"this is not an archive" * 100)
    with pytest.raises(ArchiveError, match="cannot read archive"):
        read_archive(path, lambda p: True)


def test_oversized_member_is_skipped_and_reported(tmp_path):
    big = b"#" * (3 * 1024)
    whl = build_wheel(tmp_path, "big", "1.0", {"big/huge.py": big, "big/small.py": "A = 1\n"})
    got = read_archive(whl, lambda p: p.endswith(".py"), ArchiveLimits(member_bytes=1024))
    assert list(got.files) == ["big/small.py"]
    assert got.errors[0][0] == "big/huge.py" and got.errors[0][1].startswith("member_too_large")


def _many_members(path, count: int, size: int):
    """A wheel of ``count`` members of ``size`` bytes each, compressing to almost nothing (a zip bomb's shape)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(count):
            zf.writestr(f"bomb/m{i:03d}.py", b"#" * size)
    return path


def test_a_package_over_the_byte_budget_is_refused_before_anything_is_read(tmp_path):
    path = _many_members(tmp_path / "bomb-1.0-py3-none-any.whl", 8, 64 * 1024)
    limits = ArchiveLimits(member_bytes=100 * 1024, package_bytes=256 * 1024, section="crawl")
    with pytest.raises(ArchiveTooLarge, match=r"524288 bytes unpacked, more than crawl\.max_package_bytes=262144"):
        read_archive(path, lambda p: p.endswith(".py"), limits)
    # what is not wanted costs nothing: the same archive read for one member passes
    got = read_archive(path, lambda p: p == "bomb/m000.py", limits)
    assert list(got.files) == ["bomb/m000.py"]


def test_a_member_whose_header_understates_its_size_cannot_pass_the_budget(tmp_path):
    path = _many_members(tmp_path / "liar-1.0-py3-none-any.whl", 1, 64 * 1024)
    data = bytearray(path.read_bytes())
    # the central directory's uncompressed size (offset 24 of its entry) says 1 KiB instead of 64 KiB
    entry = data.rindex(b"PK\x01\x02")
    data[entry + 24 : entry + 28] = (1024).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(ArchiveError):  # read at most what the header allows: zipfile then finds the mismatch
        read_archive(path, lambda p: True, ArchiveLimits(package_bytes=2048))


@pytest.mark.parametrize("suffix", [".whl", ".tgz"])
def test_a_package_over_the_member_budget_is_refused(tmp_path, suffix):
    files = {f"pkg/m{i}.py": "x = 1\n" for i in range(20)}
    path = (build_wheel if suffix == ".whl" else build_npm_tgz)(tmp_path, "many", "1.0", files)
    with pytest.raises(ArchiveTooLarge, match=r"crawl\.max_package_members=10"):
        read_archive(path, lambda p: True, ArchiveLimits(package_members=10, section="crawl"))
    assert len(read_archive(path, lambda p: True, ArchiveLimits(package_members=30)).files) >= 20


def test_a_tarball_over_the_byte_budget_is_refused_while_streaming(tmp_path):
    files = {f"dist/m{i}.js": "x" * 4096 for i in range(8)}
    tgz = build_npm_tgz(tmp_path, "big-npm", "1.0.0", files)
    with pytest.raises(ArchiveTooLarge, match="max_package_bytes"):
        read_archive(tgz, lambda p: p.endswith(".js"), ArchiveLimits(package_bytes=10_000, section="crawl"))
