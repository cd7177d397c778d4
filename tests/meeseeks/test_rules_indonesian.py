"""Hand-made cases for the Indonesian lexicon/morphology rule families."""

from __future__ import annotations

import pytest

from proseval.benchmarks.meeseeks.rules.base import RuleContext
from proseval.benchmarks.meeseeks.rules.registry import evaluate_rule

ID = RuleContext(language="id")
HEAD = RuleContext(language="id", compat="head")


def latin(label, items, ctx=ID):
    return evaluate_rule(label, items, ctx, "latin").passed


# --- loanwords ---------------------------------------------------------------------------


def test_loanwords_distinct_with_initial():
    text = ["Ada karcis baru. Ada kopi baru. Kami minum kopi lagi."]
    assert latin("check_indonesian_loanwords:2,k", text) is True
    assert latin("check_indonesian_loanwords:3,k", text) is False  # kopi counted once
    assert latin("check_indonesian_loanwords:1,k", ["Ada kado dan kursus."]) is False  # not counted
    assert latin("check_indonesian_loanwords:3", ["Sistem komputer di kantor itu baru."]) is True
    assert latin("check_indonesian_loanwords:1,t", ["Ada telepon dan taksi."]) is True


def test_loanwords_empty_and_bad_parameters():
    assert latin("check_indonesian_loanwords:0,k", []) is False
    assert latin("check_indonesian_loanwords:0,k", [""]) is False
    assert evaluate_rule("check_indonesian_loanwords:x", ["a"], ID, "latin").status == "undecidable"


def test_loanwords_each_item_by_initial_and_length():
    assert latin("check_indonesian_loanwords_each:1,S,6", ["Toko Sistem Jaya", "Sukses Mart"]) is True
    assert latin("check_indonesian_loanwords_each:1,S,6", ["Toko Sistem Jaya", "Sekolah Kita"]) is False
    assert latin("check_indonesian_loanwords_each:1,K,8", ["Ada komputer di sini."]) is False
    assert latin("check_indonesian_loanwords_each:1,K,8", ["Kualitas Prima"]) is True
    assert latin("check_indonesian_loanwords_each:1,S,5", []) is False


# --- plurals, negation, abbreviations, se- ----------------------------------------------


def test_plurals_count_reduplications_but_not_lexicalised_ones():
    text = ["Anak-anak bermain. Rumah-rumahnya besar-besar. Hati-hati! Kupu-kupu terbang. Kami jalan-jalan."]
    assert latin("check_indonesian_plurals:3", text) is True
    assert latin("check_indonesian_plurals:2", ["Ada buku-buku.", "Ada buku-buku lagi."]) is True
    assert latin("check_indonesian_plurals:2", ["Ada buku-buku."]) is False
    assert latin("check_indonesian_plurals:0", [""]) is False


@pytest.mark.parametrize(
    ("word", "text", "expected"),
    [
        ("bukan", "Itu bukan buku saya.", True),
        ("bukan", "Saya bukan makan.", False),
        ("bukan", "Saya bukan makan, melainkan minum. Enak, bukan?", True),
        ("bukan", "Saya tidak makan.", False),  # keyword absent
        ("tidak", "Saya tidak tahu. Tidak masalah.", True),
        ("tidak", "Dia tidak guru.", False),
        ("jangan", "Jangan pergi dulu! Kita jangan menyerah.", True),
        ("jangan", "Saya jangan pergi.", False),
        ("jangan", "", False),
    ],
)
def test_negation_keyword(word, text, expected):
    assert latin(f"check_indonesian_negation_keyword:{word}", [text]) is expected


def test_negation_keyword_rejects_other_words():
    assert evaluate_rule("check_indonesian_negation_keyword:belum", ["x"], ID, "latin").status == "undecidable"


def test_abbreviations_total_and_unique():
    text = ["Ini tentang tgl. tersebut. Ini tentang TNI tersebut. Jl. Merdeka No. 5, dll. dll."]
    assert latin("check_indonesian_abbreviations:5", text) is True  # Jl. is not counted
    assert latin("check_indonesian_abbreviations:4:unique", text) is True
    assert latin("check_indonesian_abbreviations:1", ["Say no to that."]) is False  # "no" needs its dot
    assert latin("check_indonesian_abbreviations:0", []) is True
    assert latin("check_indonesian_abbreviations:1", []) is False


def test_se_usage_minimum_and_mismatch():
    assert latin("check_se_usage", ["Ada seorang guru dan sebuah buku."]) is True
    assert latin("check_se_usage:1", ["Sekali lagi, maaf."]) is False
    assert latin("check_se_usage:2", ["Ada sepasang sepatu.", "Kami menunggu sehari."]) is True
    assert latin("check_se_usage", ["Ada seekor guru di kelas."]) is False
    assert latin("check_se_usage", []) is False


# --- voice, register, honorifics, imperatives -------------------------------------------


def test_active_voice_counts_me_verbs_only():
    text = ["Dia membaca buku. Mereka menulis surat di meja. Itu merupakan hal baik menurut saya."]
    assert latin("check_active_voice:3", text) is True  # membaca, menulis, merupakan
    assert latin("check_active_voice:4", text) is False
    assert latin("check_active_voice:0", [""]) is False


def test_passive_voice_counts_solid_di_verbs_only():
    text = ["Buku itu dibaca di rumah. Dia berdiskusi tentang distribusi. Surat dikirim kemarin."]
    assert latin("check_passive_voice:2", text) is True
    assert latin("check_passive_voice:3", text) is False
    assert latin("check_passive_voice:0", []) is False


def test_colloquial_count_includes_repetitions():
    assert latin("check_exact_colloquial_count:0", ["Dengan hormat, kantor tutup hari ini."]) is True
    assert latin("check_exact_colloquial_count:0", ["Enak banget!"]) is False
    assert latin("check_exact_colloquial_count:3", ["Gue nggak tahu. Udah makan?"]) is True
    assert latin("check_exact_colloquial_count:2", ["Gimana kabarnya?", "Gimana?"]) is True
    assert latin("check_exact_colloquial_count:0", []) is False


def test_formal_honorifics():
    text = ["Yang Terhormat Bapak Menteri. Anda dipersilakan masuk. Ibu saya guru."]
    assert latin("check_formal_honorifics:4", text) is True
    assert latin("check_formal_honorifics:1", ["Dengan hormat, kami menulis."]) is True  # phrase counts once
    assert latin("check_formal_honorifics:0", ["Ibu kota itu ramai."]) is True  # capital city
    assert latin("check_formal_honorifics:0", ["ibu saya memasak."]) is True  # kinship, lower case
    assert latin("check_formal_honorifics:0", [""]) is False


def test_polite_imperatives():
    text = ["Silakan duduk. Mohon tunggu sebentar. Coba lihat ini. Bapak dan Ibu, mari kita mulai!"]
    assert latin("check_polite_imperatives:3", text) is True
    assert latin("check_polite_imperatives:2", text) is False
    assert latin("check_polite_imperatives:0", ["Tolong bantu saya?"]) is True  # a question
    assert latin("check_polite_imperatives:0", []) is False


# --- si / sang, fronted objects ----------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "text", "expected"),
    [
        ("check_sang_usage", "Sang kancil sangat cerdik.", True),
        ("check_sang_usage", "Dia sangat pintar.", True),
        ("check_sang_usage", "Sang para juara berdiri.", False),
        ("check_sang_usage", "Mereka memuji sang.", False),
        ("check_sang_usage", "", True),
        ("check_si_usage", "Si kecil Rina membaca puisi.", True),
        ("check_si_usage", "Si dia datang terlambat.", False),
        ("check_si_usage", "Si anak-anak bermain.", False),
        ("check_si_usage", "Sisi jalan itu sepi.", True),
        ("check_si_usage", "Si Kancil bertemu si raja hutan.", False),
        ("check_si_usage", "si tuhan", False),
        ("check_si_usage", "si gurunya baik", True),
        ("check_si_usage", "si 5 orang", True),
    ],
)
def test_si_sang_usage(label, text, expected):
    assert latin(label, [text]) is expected


def test_si_sang_labels_match_exactly():
    assert latin("check_sang_usage", []) is True
    assert evaluate_rule("check_sang_usage:1", ["x"], ID, "latin").status == "undecidable"


def test_fronted_emphasis_main_clause_objects():
    text = [
        "Buku itu sudah saya baca. Karena surat itu dia tulis, kami tahu. Anak itu bermain bola. "
        "Tombol ini harus Anda klik. Hadiah itu kubeli kemarin."
    ]
    assert latin("check_fronted_emphasis:3", text) is True
    assert latin("check_fronted_emphasis:4", text) is False
    assert latin("check_fronted_emphasis:0", ["Buku itu membuat saya senang."]) is True
    assert latin("check_fronted_emphasis:0", []) is False


def test_fronted_emphasis_head_reproduces_reference_never_finding_one():
    assert latin("check_fronted_emphasis:1", ["Buku itu sudah saya baca."], HEAD) is False
    assert latin("check_fronted_emphasis:1", ["Buku itu sudah saya baca."]) is True


def test_si_reads_items_as_one_text_and_head_ignores_upper_case():
    assert latin("check_si_usage", ["Cerita tentang si", "raja yang adil"]) is False
    assert latin("check_si_usage", ["SI RAJA"]) is False
    assert (
        evaluate_rule("check_si_usage", ["SI RAJA"], RuleContext(language="id", compat="head"), "latin").passed is True
    )
