"""CAT-tool files written for the tests: a Trados-style XLIFF 1.2 and an XLIFF 2.0 with codes."""

from __future__ import annotations

XLIFF12 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"
 xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0">
<file original="ui.properties" source-language="en-US" target-language="de-DE"
 datatype="javapropertyresourcebundle"><body>
<trans-unit id="lb"><source>close this<x id="1" ctype="lb"/>dialog box</source>
<target>Dialog<x id="1" ctype="lb"/>schließen</target></trans-unit>
<trans-unit id="codes"><source>Open <g id="1" ctype="bold">the</g> <bx id="2"/>file<ex id="2"/>\
<ph id="3">&lt;br/&gt;</ph>now<bpt id="4">&lt;i&gt;</bpt>!<ept id="4">&lt;/i&gt;</ept>\
<it id="5" pos="open">&lt;u&gt;</it><mrk mtype="term">menu</mrk></source>
<target>Öffnen</target></trans-unit>
<trans-unit id="ph-sub"><source>Image<ph id="1">&lt;img alt="<sub>Logo</sub>"&gt;</ph>.</source>
<target>Bild<ph id="1">&lt;img alt="<sub>Logo DE</sub>"&gt;</ph>.</target></trans-unit>
<trans-unit id="no" translate="no"><source>DO_NOT_TRANSLATE</source></trans-unit>
<group id="g" translate="no"><trans-unit id="in-no-group"><source>KEY</source></trans-unit>
<group id="inner"><trans-unit id="deep"><source>DEEP</source></trans-unit></group></group>
<trans-unit id="seg"><source>First sentence. Second one.</source>
<seg-source><mrk mtype="seg" mid="1">First sentence.</mrk> <g id="9"><mrk mtype="seg" mid="2">\
Second <x id="7" ctype="x-tab"/>one.</mrk></g></seg-source>
<target><mrk mtype="seg" mid="1">Erster Satz.</mrk> <g id="9"><mrk mtype="seg" mid="2">\
Zweiter <mrk mtype="x-sdl-deleted">alter </mrk>Satz.</mrk></g></target>
<sdl:seg-defs><sdl:seg id="1" conf="Translated"/><sdl:seg id="2" conf="Draft"/></sdl:seg-defs>
</trans-unit>
<trans-unit id="after"><source>Last.</source></trans-unit>
</body></file></xliff>
"""


XLIFF20 = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
<file id="f1"><unit id="u1"><originalData><data id="d1">&lt;br/&gt;</data></originalData>
<segment><source>Elysian Collection<ph id="1" dataRef="d1" subType="xlf:lb" type="fmt"/>\
Bahnhofstrasse</source>
<target>Collection Elysian<ph id="1" dataRef="d1" subType="xlf:lb" type="fmt"/>\
Bahnhofstrasse</target></segment></unit>
<unit id="u2"><segment><source>Tab<cp hex="0009"/>here, <pc id="1">bold</pc> and \
<sc id="2"/>span<ec startRef="2"/> <mrk id="m1" type="term">term</mrk> \
<sm id="m2" type="comment"/>x<em startRef="m2"/> y<ph id="3" equiv=" "/>z</source>
<target>Tab<cp hex="0009"/>ici</target></segment>
<segment><source>Ctrl<cp hex="001F"/>char</source></segment></unit>
<unit id="u3" translate="no"><segment><source>CODE</source></segment></unit>
<group id="g1" translate="no"><unit id="u4"><segment><source>ALSO</source></segment></unit>
</group></file></xliff>
"""
