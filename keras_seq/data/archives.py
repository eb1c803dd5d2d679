"""Reading one member of a zip archive with a size limit, so that a member
far larger than the format holds (a zip bomb, a wrong file) is refused
before it is read into memory."""


def read_member(archive, member, limit, source, what):
    """The bytes of `member` of the open `zipfile.ZipFile` `archive`, at
    most `limit` of them: a larger declared size, or more bytes when
    decompressed (a declared size can lie), raise a ValueError naming
    `source` and the limit a `what` holds."""
    size = archive.getinfo(member).file_size
    if size > limit:
        raise ValueError(f"{source}: {size:,} bytes, more than the {limit:,} a {what} holds; not reading it.")
    with archive.open(member) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{source}: more than {limit:,} bytes when decompressed; not reading it.")
    return data
