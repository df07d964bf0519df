"""Agreement on a WOW++ file whose contexts have 10 or 9 annotators: Krippendorff's alpha counts
every unit; Fleiss' kappa counts the 10-rater units and says how many it left out and why."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from annotate.agreement import fleiss_kappa, krippendorff_alpha
from annotate.models import Job
from annotate.selectors.report import annotation_report

pytestmark = pytest.mark.django_db

SEP = " <knowledge_separator> "
# Votes per candidate, out of the context's annotators.
CONTEXTS = {"c10a": (10, [7, 0, 10, 2]), "c10b": (10, [9, 1, 0]), "c9": (9, [7, 1, 0, 0, 8])}


@pytest.fixture
def job(tmp_path: Path) -> Job:
    data = {}
    for key, (raters, votes) in CONTEXTS.items():
        sentences = []
        for n, v in enumerate(votes):
            confidence = round(v / raters, 9)
            sentences.append({"label": f"Mars{SEP}Sentence {n}.", "confidence": confidence,
                              "relevance": "relevant" if confidence >= 0.6 else "notRelevant", "article": "Mars"})
        data[key] = {"turns": ["Hi", "Mars?"], "topic": "Mars", "annotated_sentences": sentences}
    path = tmp_path / "mixed_augmented_wow.json"
    path.write_text(json.dumps(data))
    call_command("import_dataset", "wowpp", str(path), "--job", "mixed", stdout=io.StringIO())
    return Job.objects.get(slug="mixed")


def test_kappa_says_what_it_left_out_and_alpha_counts_every_unit(job: Job) -> None:
    report = annotation_report(job=job)
    kappa, alpha = report["agreements"]
    assert report["agreement"] is kappa and kappa["measure"] == "fleiss_kappa"
    ten = [[v, 10 - v] for key in ("c10a", "c10b") for v in CONTEXTS[key][1]]
    assert kappa["value"] == pytest.approx(fleiss_kappa(ten))
    assert (kappa["units"], kappa["raters_per_unit"], kappa["contexts"]) == (7, 10, 2)
    assert (kappa["units_left_out"], kappa["contexts_left_out"]) == (5, 1)
    assert "left out 5 with 9 raters (1 context)" in kappa["left_out_because"]
    assert "(context, candidate sentence)" in kappa["unit"]
    # Alpha on every vote, as NLTK computes it from one value per annotator and unit.
    triples = [(f"r{r}", (key, n), r < v) for key, (raters, votes) in CONTEXTS.items()
               for n, v in enumerate(votes) for r in range(raters)]
    assert alpha["measure"] == "krippendorff_alpha" and alpha["value"] == pytest.approx(krippendorff_alpha(triples))
    assert (alpha["units"], alpha["contexts"], alpha["units_left_out"]) == (12, 3, 0)
    assert alpha["raters_per_unit"] == {"9": 5, "10": 7} and alpha["left_out_because"] is None


def test_the_command_and_the_page_say_it_too(job: Job, client: Client) -> None:
    out = io.StringIO()
    call_command("annotation_report", job.slug, stdout=out)
    text = out.getvalue()
    assert "fleiss_kappa" in text and "over 7 units" in text and "krippendorff_alpha" in text and "over 12 units" in text
    assert "left out  5 units: Fleiss' kappa needs the same number of raters" in text
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(f"/annotate/jobs/{job.slug}/report/").content.decode()
    assert 'data-testid="agreement-krippendorff_alpha"' in page and "over 12 units" in page
    assert "Agreement unit: a (context, candidate sentence) pair" in page and "left out 5 with 9 raters" in page
