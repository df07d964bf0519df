from django.contrib import admin

from collect.tasktypes.curiosity.models import CuriosityDialog


@admin.register(CuriosityDialog)
class CuriosityDialogAdmin(admin.ModelAdmin):
    list_display = ["room", "dialog_id", "first_aspect", "second_aspect", "tag", "split"]
    list_filter = ["tag", "split"]
    readonly_fields = ["room", "aspects", "related_entities", "known_entities", "bank", "switched_at", "marked_at"]
