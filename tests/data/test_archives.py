"""Size limits on what the data readers read into memory."""

import pytest


def test_musicxml_members_and_files_beyond_the_limit_are_not_read(tmp_path, monkeypatch):
    import zipfile

    from keras_seq.data import musicxml

    monkeypatch.setattr(musicxml, "MAX_MEMBER_BYTES", 100)
    archive = tmp_path / "big.mxl"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr(
            "META-INF/container.xml", '<container><rootfiles><rootfile full-path="s.xml"/></rootfiles></container>'
        )
        out.writestr("s.xml", "<score-partwise>" + " " * 10_000 + "</score-partwise>")
    with pytest.raises(ValueError, match=r"big\.mxl:s\.xml: 10,033 bytes, more than the 100 a MusicXML score holds"):
        musicxml.read_root(archive)
    plain = tmp_path / "big.xml"
    plain.write_text("<score-partwise>" + " " * 10_000 + "</score-partwise>")
    with pytest.raises(ValueError, match=r"big\.xml: more than 100 bytes"):
        musicxml.read_root(plain)
