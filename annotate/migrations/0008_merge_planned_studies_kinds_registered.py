# The two 0007s merged (planned studies; the kinds registered). The study columns stay on the job,
# their help texts naming no kind: the kinds that draw their items (annotate.registry) read them.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotate', '0007_job_planned_studies'),
        ('annotate', '0007_kinds_registered'),
    ]

    operations = [
        migrations.AlterField(
            model_name='job',
            name='plan',
            field=models.JSONField(blank=True, default=dict, help_text="The study's power analysis: the judgments it needs (kinds that draw their items)"),
        ),
        migrations.AlterField(
            model_name='job',
            name='active_sampling',
            field=models.BooleanField(default=False, help_text="Serve the items whose judgment most narrows the report's overlapping intervals (kinds that draw their items)"),
        ),
        migrations.AlterField(
            model_name='job',
            name='stop_when_separated',
            field=models.BooleanField(default=False, help_text="Serve no more items once the report's neighbouring 95% intervals are apart (kinds that draw their items)"),
        ),
        migrations.AlterField(
            model_name='job',
            name='max_judgments',
            field=models.PositiveIntegerField(default=0, help_text='Serve no more task items after this many judgments (0: no budget)'),
        ),
    ]
