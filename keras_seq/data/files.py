"""Finding data files: explicit folder, $KERAS_SEQ_DATA_DIR, the Keras cache,
then (for files with a public canonical URL) a checksummed download."""

import hashlib
import os

ENV_VAR = "KERAS_SEQ_DATA_DIR"


def cache_dir():
    base = os.environ.get("KERAS_HOME", os.path.join(os.path.expanduser("~"), ".keras"))
    return os.path.join(base, "datasets", "keras_seq")


def check_data_dir(data_dir):
    """Raises a ValueError naming an explicit `data_dir` that is not an
    existing folder, rather than looking elsewhere for its files."""
    if data_dir is None:
        return
    if not os.path.exists(data_dir):
        raise ValueError(
            f"data_dir {str(data_dir)!r} does not exist; pass the folder that holds the data "
            f"files, or leave data_dir out to use ${ENV_VAR} or the Keras cache."
        )
    if not os.path.isdir(data_dir):
        raise ValueError(f"data_dir {str(data_dir)!r} is not a folder; pass the folder that holds the data files.")


def search_dirs(data_dir=None):
    """The folders searched, in order: an explicit `data_dir` (which must be
    an existing folder), then $KERAS_SEQ_DATA_DIR, then the Keras cache folder."""
    check_data_dir(data_dir)
    dirs = [data_dir, os.environ.get(ENV_VAR), cache_dir()]
    return [d for d in dirs if d]


def sha256(path, chunk=1 << 20):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def find(relative_path, data_dir=None, url=None, sha256_hex=None):
    """The local path of a dataset file, downloading it if it has a URL.

    Looks in `data_dir` (given, it must be an existing folder: ValueError
    otherwise), then `$KERAS_SEQ_DATA_DIR`, then the Keras cache folder.
    A file found is checked against `sha256_hex` when given. A missing
    file with a `url` is downloaded into the cache (checksum verified);
    without one, or offline, the error names the file and where to put it.
    """
    for folder in search_dirs(data_dir):
        path = os.path.join(folder, relative_path)
        if os.path.isdir(path):
            raise IsADirectoryError(
                f"Data file {relative_path!r}: {path!r} is a directory, not the file; "
                "move the file there (or remove the directory) and try again."
            )
        if os.path.isfile(path):
            if sha256_hex is not None:
                verify(path, sha256_hex)
            return path
    where = " or ".join(repr(os.path.join(d, relative_path)) for d in search_dirs(data_dir))
    if url is None:
        raise FileNotFoundError(
            f"Data file {relative_path!r} not found; looked for {where}. Place it "
            f"there, or pass data_dir= / set ${ENV_VAR} to the folder holding it."
        )
    return download(relative_path, url, sha256_hex, where)


def download(relative_path, url, sha256_hex, where):
    target = os.path.join(cache_dir(), relative_path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    try:
        import urllib.request

        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise FileNotFoundError(
            f"Data file {relative_path!r} is not on this machine (looked for "
            f"{where}) and downloading it from {url} failed ({error}). Download "
            f"it by hand into one of those places, or pass data_dir=."
        ) from error
    partial = f"{target}.{os.getpid()}.part"
    with open(partial, "wb") as f:
        f.write(data)
    if sha256_hex is not None:
        try:
            verify(partial, sha256_hex)
        except ValueError:
            os.remove(partial)
            raise
    os.replace(partial, target)
    return target


def verify(path, sha256_hex):
    actual = sha256(path)
    if actual != sha256_hex:
        raise ValueError(
            f"Checksum mismatch for {path}: sha256 {actual}, expected {sha256_hex}. "
            "The file is corrupt, truncated or a different version; delete it "
            "and fetch it again."
        )
