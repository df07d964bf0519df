from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('collect', '0011_evalmodel_kind_checkpoint'),
    ]

    operations = [
        migrations.AddField(
            model_name='duconvsession',
            name='sample_keys',
            field=models.JSONField(blank=True, help_text='Imported from a test-format samples file: the sample\'s keys in order (its messages are the history, then the response when it had one)', null=True),
        ),
    ]
