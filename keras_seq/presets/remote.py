"""Presets fetched from elsewhere, kept in a cache under `KERAS_HOME`
(default `~/.keras`): an https URL of a `.tar.gz` / `.zip` archive,
downloaded with `keras.utils.get_file` and checked against its SHA-256, or
`hf://owner/repo` on the Hugging Face Hub (needs `huggingface_hub`). A
preset found in the cache is checked and used without the network."""

import hashlib
import os
import shutil
import tarfile
import zipfile

from keras_seq.presets import files

CACHE_SUBDIR = os.path.join("keras_seq", "presets")


def cache_root():
    """`$KERAS_HOME/keras_seq/presets` (default `~/.keras/keras_seq/presets`)."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, CACHE_SUBDIR)


def split_hash(url, file_hash=None):
    """`(url, sha256)`: a hash given as `file_hash` or in the URL's
    `#sha256=<hex>` fragment (the same in both, if both)."""
    url, _, fragment = url.partition("#")
    if fragment:
        key, _, value = fragment.partition("=")
        if key != "sha256" or len(value) != 64:
            raise ValueError(f"{url}#{fragment}: a preset URL's fragment must be #sha256=<64 hex digits>.")
        if file_hash and file_hash.lower() != value.lower():
            raise ValueError(f"{url}: the URL's sha256 and file_hash differ.")
        file_hash = value
    if file_hash is not None and (len(file_hash) != 64 or any(c not in "0123456789abcdefABCDEF" for c in file_hash)):
        raise ValueError(f"file_hash must be a SHA-256 (64 hex digits); got {file_hash!r}.")
    return url, None if file_hash is None else file_hash.lower()


def _cached(directory):
    """`directory` when it holds a preset that checks out; otherwise None (a
    damaged copy is removed, to be fetched again)."""
    if not os.path.isdir(directory):
        return None
    try:
        files.read_metadata(directory)
    except (ValueError, FileNotFoundError):
        shutil.rmtree(directory, ignore_errors=True)
        return None
    return directory


def _preset_root(folder):
    """The folder of an unpacked archive that holds `metadata.json`: the
    archive's top, or its one top-level folder."""
    if os.path.exists(os.path.join(folder, files.METADATA)):
        return folder
    entries = [e for e in os.listdir(folder) if not e.startswith(".")]
    if len(entries) == 1 and os.path.exists(os.path.join(folder, entries[0], files.METADATA)):
        return os.path.join(folder, entries[0])
    raise ValueError(f"the archive holds no keras-seq preset (no {files.METADATA} at its top or in its one folder).")


def _unpack(archive, folder):
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")  # no absolute paths, links out or devices
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                target = os.path.realpath(os.path.join(folder, name))
                if not target.startswith(os.path.realpath(folder) + os.sep):
                    raise ValueError(f"the archive's member {name!r} points outside it.")
            z.extractall(folder)
    else:
        raise ValueError("the download is neither a tar nor a zip archive.")


def fetch_url(url, file_hash=None):
    """The cached directory of the preset archive at `url` (downloaded on
    first use, its SHA-256 checked when given, unpacked and checked file by
    file before it is renamed into the cache: a failure leaves nothing)."""
    import keras

    url, file_hash = split_hash(url, file_hash)
    key = file_hash[:16] if file_hash else "url-" + hashlib.sha256(url.encode()).hexdigest()[:16]
    name = os.path.basename(url.rstrip("/")).split("?")[0] or "preset"
    stem = name.split(".")[0]
    root = cache_root()
    final = os.path.join(root, f"{stem}-{key}")
    if _cached(final):
        return final
    downloads = os.path.join(root, "downloads")
    os.makedirs(downloads, exist_ok=True)
    archive = os.path.join(downloads, f"{stem}-{key}-{name}")
    try:
        archive = keras.utils.get_file(
            os.path.basename(archive),
            url,
            file_hash=file_hash,
            cache_dir=downloads,
            cache_subdir=downloads,
            hash_algorithm="sha256",
        )
    except ValueError as error:  # get_file's hash mismatch keeps the file: drop it
        if os.path.exists(archive):
            os.remove(archive)
        raise ValueError(
            f"{url}: the download does not match its SHA-256 {file_hash} "
            f"(corrupted or tampered); nothing was kept. ({error})"
        ) from None
    except Exception as error:  # get_file raises a bare Exception for URL errors
        raise ValueError(f"{url}: the preset could not be downloaded ({error}).") from None
    temporary = os.path.join(root, f".{stem}-{key}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        _unpack(archive, temporary)
        files.read_metadata(_preset_root(temporary))
        if os.path.exists(final):
            shutil.rmtree(final)
        os.replace(_preset_root(temporary), final)
    except (ValueError, FileNotFoundError, OSError) as error:
        os.remove(archive)
        raise ValueError(f"{url}: {error}") from None
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return final


def fetch_hugging_face(handle):
    """The local directory of `hf://owner/repo[@revision]` (or a subfolder
    `hf://owner/repo/folder`), downloaded by `huggingface_hub` into its
    cache under `KERAS_HOME` (offline after the first load)."""
    try:
        import huggingface_hub
    except ImportError:
        raise ImportError(
            "hf:// presets need huggingface_hub: pip install huggingface_hub (or keras-seq[hub])."
        ) from None
    path = handle[len("hf://") :]
    path, _, revision = path.partition("@")
    parts = path.strip("/").split("/")
    if len(parts) < 2 or not all(parts):
        raise ValueError(f"{handle}: a Hugging Face preset is hf://owner/repo[/folder][@revision].")
    repo, folder = "/".join(parts[:2]), "/".join(parts[2:])
    cache = os.path.join(cache_root(), "hf")
    kwargs = dict(repo_id=repo, revision=revision or None, cache_dir=cache)
    if folder:
        kwargs["allow_patterns"] = [f"{folder}/*"]
    try:
        local = huggingface_hub.snapshot_download(**kwargs)
    except Exception:
        local = huggingface_hub.snapshot_download(**kwargs, local_files_only=True)  # offline: the cached copy
    return os.path.join(local, folder) if folder else local
