from django.contrib import admin

from collect.tasktypes.woi.models import WoiDialogue, WoiSearch


@admin.register(WoiDialogue)
class WoiDialogueAdmin(admin.ModelAdmin):
    list_display = ["room", "persona_key", "persona_written", "dialog_id", "split"]
    list_filter = ["split"]
    readonly_fields = ["room", "persona_form", "persona", "persona_key", "persona_written", "dialog_id", "split", "position", "extra"]


@admin.register(WoiSearch)
class WoiSearchAdmin(admin.ModelAdmin):
    list_display = ["room", "after_seq", "query", "status", "error_code", "backend", "created", "finished_at"]
    list_filter = ["status", "error_code", "backend"]
    search_fields = ["query", "error"]
    readonly_fields = [f.name for f in WoiSearch._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
