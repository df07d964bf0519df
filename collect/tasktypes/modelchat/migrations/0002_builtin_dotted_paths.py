"""Registered Python models whose class lived in collect.modelchat (the built-in bots) name the
module's place in the model-chat package: collect.tasktypes.modelchat."""

from django.db import migrations

OLD, NEW = "collect.modelchat.", "collect.tasktypes.modelchat."


def forwards(apps, schema_editor):
    EvalModel = apps.get_model("modelchat", "EvalModel")
    for model in EvalModel.objects.filter(dotted_path__startswith=OLD):
        model.dotted_path = NEW + model.dotted_path[len(OLD):]
        model.save(update_fields=["dotted_path"])


def backwards(apps, schema_editor):
    EvalModel = apps.get_model("modelchat", "EvalModel")
    for model in EvalModel.objects.filter(dotted_path__startswith=NEW):
        model.dotted_path = OLD + model.dotted_path[len(NEW):]
        model.save(update_fields=["dotted_path"])


class Migration(migrations.Migration):
    dependencies = [("modelchat", "0001_initial")]
    operations = [migrations.RunPython(forwards, backwards)]
