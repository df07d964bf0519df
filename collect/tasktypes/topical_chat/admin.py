from django.contrib import admin

from collect.tasktypes.topical_chat.models import TopicalConversation


@admin.register(TopicalConversation)
class TopicalConversationAdmin(admin.ModelAdmin):
    list_display = ["conversation_id", "room", "config", "rating_agent_1", "rating_agent_2", "split"]
    list_filter = ["config", "split"]
    readonly_fields = ["room", "reading_sets", "article"]
